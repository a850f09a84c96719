//===- LinearLayout.h - layouts as linear maps over F2 ----------*- C++ -*-===//
//
// A distributed layout maps a hardware index (register, lane, warp) to the
// coordinates of the tile element that index holds. Every input bit has a
// basis vector of coordinates; the coordinates of an index are the XOR of the
// bases of its set bits (Linear Layouts, Zhou et al. 2025). Named layouts
// (blocked, mma fragments) are constructors of this one class.
//
// Plain C++ over bit-matrices: no MLIR op code here.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LAYOUT_LINEARLAYOUT_H
#define TILEC_LAYOUT_LINEARLAYOUT_H

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilec {

/// The hardware input dims of a distributed layout.
enum class InDim { Register = 0, Lane = 1, Warp = 2 };
constexpr int kNumInDims = 3;

class LinearLayout {
public:
  using Coords = std::vector<int64_t>;
  using Bases = std::vector<Coords>;

  LinearLayout() = default;
  /// A layout of the given output shape (every dim a power of two) and bases.
  LinearLayout(std::vector<int64_t> shape, Bases registerBases,
               Bases laneBases, Bases warpBases);

  //===--------------------------------------------------------------------===//
  // Named constructors
  //===--------------------------------------------------------------------===//

  /// Triton's blocked layout: each thread holds `sizePerThread` consecutive
  /// elements, a warp `threadsPerWarp` threads, a program `warpsPerCTA`
  /// warps; `order` lists dims fastest first. Smaller shapes replicate
  /// (zero bases), larger ones repeat in registers.
  static LinearLayout blocked(const std::vector<int64_t> &shape,
                              const std::vector<int64_t> &sizePerThread,
                              const std::vector<int64_t> &threadsPerWarp,
                              const std::vector<int64_t> &warpsPerCTA,
                              const std::vector<int64_t> &order);

  /// The blocked layout for coalesced, vectorized global access to a tile of
  /// `shape` with elements of `elementBits`, contiguous along `contigDim`.
  static LinearLayout coalesced(const std::vector<int64_t> &shape,
                                unsigned elementBits, int numWarps,
                                int contigDim);

  /// mma.sync m16n8 accumulator layout of an MxN tile; warps are split
  /// warpsM x warpsN (warp bits along M first).
  static LinearLayout mmaAccumulator(const std::vector<int64_t> &shape,
                                     int warpsM, int warpsN);
  /// mma.sync operand layouts for an MxK (opIdx 0) or KxN (opIdx 1) tile with
  /// elements of `elementBits` (16: m16n8k16, 8: m16n8k32).
  static LinearLayout mmaOperand(int opIdx, const std::vector<int64_t> &shape,
                                 unsigned elementBits, int warpsM, int warpsN);
  /// The warp split tilec uses for an MxN dot with `numWarps` warps.
  static std::pair<int, int> mmaWarpSplit(int64_t m, int64_t n, int numWarps);

  //===--------------------------------------------------------------------===//
  // Derived layouts
  //===--------------------------------------------------------------------===//

  /// The layout of a reduction along `dim`: that dim is removed; register
  /// bases along it are dropped and lane/warp bases along it become zero.
  LinearLayout reduceDim(int dim) const;
  /// The operand layout a broadcast along `dims` (size 1 in the operand)
  /// needs when its result has this layout.
  LinearLayout broadcastOperand(const std::vector<int> &dims) const;
  /// Insert a size-1 dim at `axis`.
  LinearLayout expandDims(int axis) const;
  /// Remove the size-1 dim `axis`.
  LinearLayout squeezeDim(int axis) const;
  /// Result dim i is this layout's dim perm[i].
  LinearLayout transpose(const std::vector<int> &perm) const;
  /// Reinterpret the elements (row-major) with another shape.
  LinearLayout reshape(const std::vector<int64_t> &newShape) const;
  /// The same bases with the warp count padded (zero bases) to `numWarps`.
  LinearLayout withNumWarps(int numWarps) const;

  //===--------------------------------------------------------------------===//
  // Queries
  //===--------------------------------------------------------------------===//

  unsigned getRank() const { return shape.size(); }
  const std::vector<int64_t> &getShape() const { return shape; }
  const Bases &getBases(InDim d) const { return bases[int(d)]; }
  int64_t getNumRegisters() const { return int64_t(1) << bases[0].size(); }
  int64_t getNumLanes() const { return int64_t(1) << bases[1].size(); }
  int64_t getNumWarps() const { return int64_t(1) << bases[2].size(); }

  /// Coordinates of the element at (register, lane, warp).
  Coords apply(int64_t reg, int64_t lane, int64_t warp) const;
  /// Coordinates contributed by one input dim's index alone.
  Coords applyIn(InDim d, int64_t index) const;

  /// Every basis is zero or has exactly one non-zero coordinate.
  bool isAxisAligned() const;
  /// Every element of the shape is held by some (register, lane, warp).
  bool isSurjective() const;
  /// How many consecutive elements along `dim` a run of consecutive registers
  /// of one thread holds (1 if none), as used for vector accesses.
  int64_t getContiguity(int dim) const;
  /// The smallest non-zero coordinate along `dim` among lane and warp bases,
  /// or 0 if none: vector accesses must not exceed it.
  int64_t getThreadGranularity(int dim) const;
  /// The register index whose coordinates (lane 0, warp 0) are `coords`.
  std::optional<int64_t> findRegister(const Coords &coords) const;

  bool operator==(const LinearLayout &o) const {
    return shape == o.shape && bases == o.bases;
  }
  bool operator!=(const LinearLayout &o) const { return !(*this == o); }

  /// Human-readable form, e.g. for diagnostics and `tilec layout`.
  std::string toString() const;

private:
  std::vector<int64_t> shape;
  std::array<Bases, kNumInDims> bases;
};

} // namespace tilec

#endif // TILEC_LAYOUT_LINEARLAYOUT_H
