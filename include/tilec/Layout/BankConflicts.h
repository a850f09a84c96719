//===- BankConflicts.h - shared-memory wavefronts of a warp -----*- C++ -*-===//
//
// How many shared-memory wavefronts a warp's access takes when the values a
// distributed layout holds are stored to (or loaded from) a shared-memory
// layout: 32 banks of 4 bytes, each wavefront serves one 4-byte word per
// bank (threads reading the same word share it).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LAYOUT_BANKCONFLICTS_H
#define TILEC_LAYOUT_BANKCONFLICTS_H

#include "tilec/Layout/LinearLayout.h"

#include <optional>

namespace tilec {

struct SharedAccess {
  /// Elements each thread moves with one instruction (a power of two).
  int64_t vectorElements = 1;
  /// Instructions a warp issues to move all its registers.
  int64_t instructions = 0;
  /// Wavefronts one instruction takes (the same for each).
  int64_t wavefronts = 0;
  /// Wavefronts a conflict-free instruction takes: the distinct words it
  /// touches over 32.
  int64_t idealWavefronts = 0;
  /// Elements of each vector as offsets (the layout from register, lane,
  /// warp to the shared offset).
  LinearLayout toOffset;

  int64_t excessWavefronts() const {
    return instructions * (wavefronts - idealWavefronts);
  }
};

/// The access of `dist` (register, lane, warp -> coordinates) into `shared`
/// (offset -> the same coordinates, a bijection) with elements of
/// `elementBits`, using vectors of at most `maxVectorBytes`. Computed exactly
/// from the algebra; nothing if `dist` holds an element `shared` does not.
std::optional<SharedAccess> analyzeSharedAccess(const LinearLayout &dist,
                                                const LinearLayout &shared,
                                                unsigned elementBits,
                                                int64_t maxVectorBytes = 16);

/// Elements a vector access moves through `toOffset` (register, lane,
/// warp -> element offset): registers whose offsets are 1, 2, 4, ... while
/// the vector stays within `maxVectorBytes`, and whose starts, moved by
/// every other basis and by `start` (elements), stay aligned to it.
int64_t sharedVectorElements(const LinearLayout &toOffset,
                             int64_t elementBytes, int64_t maxVectorBytes,
                             int64_t start = 0);

/// The same count by enumerating every thread's addresses (for tests).
int64_t simulateWavefronts(const LinearLayout &dist,
                           const LinearLayout &shared, unsigned elementBits,
                           int64_t vectorElements);

} // namespace tilec


namespace tilec {

/// A shared-memory layout for moving a tile from one distributed layout to
/// another, with the accesses it gives each side.
struct SharedChoice {
  LinearLayout shared;
  SharedAccess store, load;
};

/// Whether converting `from` to `to` only renames registers (lane and warp
/// bases agree and each of `to`'s registers is one of `from`'s).
bool isRegisterPermutation(const LinearLayout &from, const LinearLayout &to);

/// If every thread can get each element `to` gives it from one register of
/// `from` in a lane of its own warp — a register chosen by the destination
/// register alone — the map (register, lane, warp) of `to` -> (register,
/// lane, warp) of `from` that says where: the conversion is warp shuffles.
std::optional<LinearLayout> shuffleTransfer(const LinearLayout &from,
                                            const LinearLayout &to);

/// How ldmatrix.x4 can load a layout's registers from shared memory: per
/// 8 registers (four 8x8 b16 matrices), lane t gives the address of row
/// t % 8 of matrix t / 8; `rowBases` are the offsets those 5 bits of t add.
struct MatrixLoad {
  bool transposed = false;
  std::vector<int64_t> rowBases; // 5 entries, for bits of the lane index
};
/// Whether `toOffset` (register, lane, warp -> offset, 16-bit elements) is
/// what ldmatrix.x4 delivers, plain or .trans.
std::optional<MatrixLoad> matchLdmatrix(const LinearLayout &toOffset);

/// Chooses, among unswizzled and swizzled (vec, perPhase, maxPhase) shared
/// layouts along either fast dim, the one whose stores and loads take the
/// fewest wavefronts in all, then the fewest instructions (widest vectors),
/// then the fewest excess wavefronts.
std::optional<SharedChoice> chooseSharedLayout(const LinearLayout &from,
                                               const LinearLayout &to,
                                               unsigned elementBits);

} // namespace tilec

#endif // TILEC_LAYOUT_BANKCONFLICTS_H
