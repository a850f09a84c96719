//===- ProfileRecords.h - tile.profile_begin/end read as one ----*- C++ -*-===//
//
// The profiler's record ops (tile.profile_begin, tile.profile_end) seen
// through one view: their scope, edge, argument and the frame and slot
// tile-profile gives them (docs/PROFILER.md, "Frames"). The passes and the
// lowering that handle both ops use this instead of naming attributes.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_PROFILERECORDS_H
#define TILEC_DIALECT_TILE_PROFILERECORDS_H

#include "tilec/Dialect/Tile/TileDialect.h"

#include <optional>

namespace tilec::tile {

/// A tile.profile_begin or tile.profile_end.
struct ProfileRecord {
  mlir::Operation *op;
  mlir::StringAttr scope;
  bool end;
  mlir::Value arg;         // a begin's argument, or null
  mlir::IntegerAttr frame; // tile-profile's (both or neither)
  mlir::IntegerAttr slot;
};

/// `op` as a record, or nothing if it is not one.
std::optional<ProfileRecord> asProfileRecord(mlir::Operation *op);
/// Whether `op` is a tile.profile_begin or tile.profile_end.
bool isProfileRecord(mlir::Operation *op);
/// Puts a record in frame `frame`, slot `slot`.
void setProfileFrame(mlir::Operation *record, int frame, int slot);
/// The first tile.profile_end at or after `from` that closes a scope opened
/// before `from` (scopes nest: the first one no begin in between balances);
/// null if none.
ProfileEndOp getOpenScopeEnd(mlir::Operation *from);
/// The tile.profile_end that closes `begin`; null if none.
ProfileEndOp getScopeEnd(ProfileBeginOp begin);

} // namespace tilec::tile

#endif // TILEC_DIALECT_TILE_PROFILERECORDS_H
