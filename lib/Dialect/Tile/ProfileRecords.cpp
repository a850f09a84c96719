//===- ProfileRecords.cpp - tile.profile_begin/end read as one ------------===//

#include "tilec/Dialect/Tile/ProfileRecords.h"

using namespace mlir;

namespace tilec::tile {

std::optional<ProfileRecord> asProfileRecord(Operation *op) {
  if (auto b = dyn_cast<ProfileBeginOp>(op))
    return ProfileRecord{op, b.getScopeAttr(), false, b.getArg(),
                         b.getFrameAttr(), b.getSlotAttr()};
  if (auto e = dyn_cast<ProfileEndOp>(op))
    return ProfileRecord{op, e.getScopeAttr(), true, Value(),
                         e.getFrameAttr(), e.getSlotAttr()};
  return std::nullopt;
}

bool isProfileRecord(Operation *op) {
  return isa<ProfileBeginOp, ProfileEndOp>(op);
}

void setProfileFrame(Operation *record, int frame, int slot) {
  Builder b(record->getContext());
  IntegerAttr f = b.getI32IntegerAttr(frame), s = b.getI32IntegerAttr(slot);
  if (auto begin = dyn_cast<ProfileBeginOp>(record)) {
    begin.setFrameAttr(f);
    begin.setSlotAttr(s);
  } else {
    auto end = cast<ProfileEndOp>(record);
    end.setFrameAttr(f);
    end.setSlotAttr(s);
  }
}

ProfileEndOp getScopeEnd(ProfileBeginOp begin) {
  return getOpenScopeEnd(begin->getNextNode());
}

ProfileEndOp getOpenScopeEnd(Operation *from) {
  int depth = 0;
  for (Operation *o = from; o; o = o->getNextNode()) {
    if (isa<ProfileBeginOp>(o)) {
      ++depth;
    } else if (auto end = dyn_cast<ProfileEndOp>(o)) {
      if (depth == 0)
        return end;
      --depth;
    }
  }
  return nullptr;
}

} // namespace tilec::tile
