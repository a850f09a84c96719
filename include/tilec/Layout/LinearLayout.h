//===- LinearLayout.h - layouts as linear maps over F2 ----------*- C++ -*-===//
//
// A layout is a linear map over F2 from named input dims (hardware indices:
// register, lane, warp, block for values in registers; offset, block for
// shared memory; ...) to named output dims (tensor coordinates dim0, dim1,
// ...). Every input bit has a basis vector of output coordinates; the image
// of an input is the XOR of the bases of its set bits (Linear Layouts, Zhou
// et al. 2025). Every dim has a power-of-two size. Named layouts (blocked,
// mma fragments, swizzled shared memory, ...) are constructors of this one
// class.
//
// Flattening: the output space flattens row-major (the last output dim is
// the least significant), the input space with the first input dim least
// significant (register bits below lane bits below warp bits).
//
// Plain C++ over bit-matrices: no MLIR op code here.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LAYOUT_LINEARLAYOUT_H
#define TILEC_LAYOUT_LINEARLAYOUT_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tilec {

/// The hardware input dims of a distributed layout.
enum class InDim { Register = 0, Lane = 1, Warp = 2 };
/// The name of an InDim: "register", "lane", "warp".
const char *inDimName(InDim d);
/// Standard names of output dims: "dim0", "dim1", ...
std::string outDimName(unsigned i);

struct RegisterBlock;

class LinearLayout {
public:
  using Coords = std::vector<int64_t>; // one entry per output dim
  using Bases = std::vector<Coords>;   // one basis per input bit
  using NamedBases = std::vector<std::pair<std::string, Bases>>;
  using NamedSizes = std::vector<std::pair<std::string, int64_t>>;
  using NamedValues = std::vector<std::pair<std::string, int64_t>>;

  /// The empty layout: no dims, one element.
  LinearLayout() = default;
  /// A layout from its bases and output dims. Every basis has one coordinate
  /// per output dim, inside its size; sizes are powers of two.
  LinearLayout(NamedBases ins, NamedSizes outs);
  /// A distributed layout onto a tile of `shape` (dims dim0, dim1, ...).
  LinearLayout(std::vector<int64_t> shape, Bases registerBases,
               Bases laneBases, Bases warpBases);

  //===--------------------------------------------------------------------===//
  // Building blocks
  //===--------------------------------------------------------------------===//

  /// in -> out, x -> x, both of `size`.
  static LinearLayout identity1D(int64_t size, const std::string &in,
                                 const std::string &out);
  /// in (of `size`) -> out (of `outSize`), everything to 0.
  static LinearLayout zeros1D(int64_t size, const std::string &in,
                              const std::string &out, int64_t outSize = 1);
  /// in -> out, x -> x * stride; out has size * stride elements.
  static LinearLayout strided1D(int64_t size, int64_t stride,
                                const std::string &in, const std::string &out);

  /// The direct sum: input dims of both (this one's bases first where a dim
  /// is in both), output dims of both (where a dim is in both, `o`'s
  /// coordinates are the high part: multiplied by this one's size).
  LinearLayout operator*(const LinearLayout &o) const;

  /// outer ∘ this: this one's output dims are `outer`'s input dims.
  LinearLayout compose(const LinearLayout &outer) const;
  /// The inverse of a bijective layout (input and output dims swap roles).
  LinearLayout invert() const;
  /// C with outer(C(x)) == this(x) (both map into the same output space);
  /// where `outer` is not injective, the preimage using the fewest, earliest
  /// input bits. Fails if some image of this is not an image of `outer`.
  std::optional<LinearLayout> invertAndCompose(const LinearLayout &outer) const;
  /// A right inverse R of a surjective layout: this(R(y)) == y, choosing the
  /// smallest preimage.
  std::optional<LinearLayout> pseudoinvert() const;

  /// The input (or output) dims re-split into `dims`, flattening as above;
  /// the total size must agree.
  LinearLayout reshapeIns(const NamedSizes &dims) const;
  LinearLayout reshapeOuts(const NamedSizes &dims) const;
  /// One input (output) dim named `name` holding all of them.
  LinearLayout flattenIns(const std::string &name) const;
  LinearLayout flattenOuts(const std::string &name) const;
  /// The same map with the dims listed in a new order.
  LinearLayout transposeIns(const std::vector<std::string> &order) const;
  LinearLayout transposeOuts(const std::vector<std::string> &order) const;
  /// The restriction to some input dims and some output dims.
  LinearLayout sublayout(const std::vector<std::string> &ins,
                         const std::vector<std::string> &outs) const;

  /// C with this == divisor * C (the divisor is the low part), if any.
  std::optional<LinearLayout> divideLeft(const LinearLayout &divisor) const;
  /// B with this == B * divisor (the divisor is the high part), if any.
  std::optional<LinearLayout> divideRight(const LinearLayout &divisor) const;
  /// Q with this == Q * identity on each dim of `dims` (dims that are both
  /// input and output dims), if this is the identity there and nothing else
  /// reaches those output dims.
  std::optional<LinearLayout>
  quotient(const std::vector<std::string> &dims) const;

  /// Per input dim, the bits that do not change the output given the earlier
  /// bits (their column is in the span of the preceding ones).
  std::map<std::string, int64_t> getFreeVariableMasks() const;
  /// How many elements consecutive in the flattened output space the first
  /// input dim's consecutive indices hold, starting from 0.
  int64_t getNumConsecutiveInOut() const;

  //===--------------------------------------------------------------------===//
  // Queries
  //===--------------------------------------------------------------------===//

  const NamedBases &getInDims() const { return ins; }
  const NamedSizes &getOutDims() const { return outs; }
  bool hasInDim(const std::string &name) const;
  /// log2 of an input dim's size (0 if absent).
  unsigned getInDimSizeLog2(const std::string &name) const;
  int64_t getInDimSize(const std::string &name) const {
    return int64_t(1) << getInDimSizeLog2(name);
  }
  int64_t getOutDimSize(const std::string &name) const;
  int64_t getTotalInDimSize() const;
  int64_t getTotalOutDimSize() const;
  unsigned getNumOutDims() const { return outs.size(); }
  const Bases &getBases(const std::string &in) const;

  /// The output coordinates of input values given by name (absent: 0).
  NamedValues apply(const NamedValues &inputs) const;
  /// The output coordinates (one per output dim) of input values, one per
  /// input dim in order.
  Coords applyAll(const std::vector<int64_t> &inputs) const;

  bool isSurjective() const;
  bool isInjective() const;
  bool isInvertible() const { return isSurjective() && isInjective(); }

  /// Equal maps: the same output dims (in order) and the same bases for
  /// every input dim by name (a dim with no bases counts as absent).
  bool operator==(const LinearLayout &o) const;
  bool operator!=(const LinearLayout &o) const { return !(*this == o); }

  /// `in = [[..], ..], ... -> out0 = N, ...`
  std::string toString() const;

  //===--------------------------------------------------------------------===//
  // Distributed layouts: register, lane, warp -> dim0, dim1, ...
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
  /// The warp split tilec uses for an MxN dot with `numWarps` warps: the
  /// one holding the smallest operand slices per warp, or all warps along M
  /// with `alongM` (for results reduced along rows or fed to another dot).
  static std::pair<int, int> mmaWarpSplit(int64_t m, int64_t n, int numWarps,
                                          bool alongM = false);
  /// How wgmma spreads an MxN accumulator over `numWarps` warps: warpgroups
  /// along M (64 rows each) as far as M allows, the rest splitting N into
  /// equal chunks (a multiple of 8 each, at most 256); none where no split
  /// fits (M not a multiple of 64, N not a multiple of 8, a share over 256,
  /// or not whole warpgroups).
  static std::optional<std::pair<int, int>>
  wgmmaWarpGroups(int64_t m, int64_t n, int numWarps);
  /// The warpgroups (along M, along N) of this wgmma accumulator layout:
  /// its warp bits past a warpgroup's four move 64 rows or a chunk of N.
  std::pair<int, int> wgmmaWarpGroupsOf() const;
  /// wgmma m64nNk16 accumulator layout of an MxN tile (a warpgroup of four
  /// warps holds 64 rows; `warpGroupsM` groups stack along M, then
  /// `warpGroupsN` groups take N / warpGroupsN columns each).
  static LinearLayout wgmmaAccumulator(const std::vector<int64_t> &shape,
                                       int warpGroupsM, int warpGroupsN = 1);
  /// wgmma's register-A operand (MxK, of `elementBits` 16 or 8: pairs or
  /// quads along K a 32-bit register, mma.sync's A fragments); warpgroups
  /// that split N hold the same A.
  static LinearLayout wgmmaOperandA(const std::vector<int64_t> &shape,
                                    int warpGroupsM, int warpGroupsN = 1,
                                    unsigned elementBits = 16);
  /// mma.sync's B fragments (KxN) for a dot laid out as
  /// wgmmaAccumulator(warpGroupsM, warpGroupsN): each warpgroup holds its
  /// chunk of N (what mma.sync computes when wgmma does not run).
  static LinearLayout wgmmaOperandB(const std::vector<int64_t> &shape,
                                    unsigned elementBits, int warpGroupsM,
                                    int warpGroupsN);

  /// The layout of a reduction along `dim`: that dim is removed; register
  /// bases along it are dropped and lane/warp bases along it become zero.
  LinearLayout reduceDim(int dim) const;
  /// The layout of the first `size` elements along `dim` (a power of two)
  /// when they sit where this layout puts them: register bases at or
  /// beyond `size` along `dim` are dropped, lane and warp ones become zero.
  LinearLayout truncateDim(int dim, int64_t size) const;
  /// The block of `sizes` (powers of two) at `offsets` when no data moves:
  /// every thread already holds the block's elements it will hold. That is
  /// when lane and warp bases change no coordinate bit that adding the
  /// offsets can change (bits at or above the offset's lowest set bit, and
  /// at or above the size), so the block is a set of whole registers.
  /// Otherwise none.
  std::optional<RegisterBlock> slice(const Coords &offsets,
                             const std::vector<int64_t> &sizes) const;
  /// This layout as the block at the origin of a larger tile of `shape`:
  /// the new coordinate bits are register bases after the present ones
  /// (the layout of a concatenation of tiles in this layout).
  LinearLayout extendInRegisters(const std::vector<int64_t> &shape) const;
  /// The lowest coordinate bit per dim that adding `offsets` to a block of
  /// `sizes` can change: min(trailing zeros of the offset, log2 size).
  static std::vector<unsigned>
  sliceFixedBits(const Coords &offsets, const std::vector<int64_t> &sizes);
  /// Where each bit of the coordinate along `dim` comes from: for bit k,
  /// the input dim and basis index whose basis is 2^k along `dim` and 0
  /// elsewhere. None if some bit has no such basis, or several, or another
  /// basis moves along `dim`.
  std::optional<std::vector<std::pair<InDim, unsigned>>>
  bitSources(int dim) const;
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

  unsigned getRank() const { return outs.size(); }
  std::vector<int64_t> getShape() const;
  const Bases &getBases(InDim d) const { return getBases(inDimName(d)); }
  int64_t getNumRegisters() const { return getInDimSize("register"); }
  int64_t getNumLanes() const { return getInDimSize("lane"); }
  int64_t getNumWarps() const { return getInDimSize("warp"); }
  /// Coordinates of the element at (register, lane, warp).
  Coords apply(int64_t reg, int64_t lane, int64_t warp) const;
  /// Coordinates contributed by one input dim's index alone.
  Coords applyIn(InDim d, int64_t index) const;
  /// Every basis is zero or has exactly one non-zero coordinate.
  bool isAxisAligned() const;
  /// How many consecutive elements along `dim` a run of consecutive registers
  /// of one thread holds (1 if none), as used for vector accesses.
  int64_t getContiguity(int dim) const;
  /// The register index whose coordinates (lane 0, warp 0) are `coords`.
  std::optional<int64_t> findRegister(const Coords &coords) const;

  //===--------------------------------------------------------------------===//
  // Shared-memory layouts: offset -> dim0, dim1, ...
  //===--------------------------------------------------------------------===//

  /// Row-major (in `order`, fastest first) unswizzled shared memory.
  static LinearLayout sharedUnswizzled(const std::vector<int64_t> &shape,
                                       const std::vector<int64_t> &order);
  /// The generic swizzle: within each row of the fastest dim, groups of
  /// `vec` elements are XORed with ((row / perPhase) % maxPhase).
  static LinearLayout sharedSwizzled(const std::vector<int64_t> &shape,
                                     const std::vector<int64_t> &order,
                                     int64_t vec, int64_t perPhase,
                                     int64_t maxPhase);
  /// The 32-, 64- or 128-byte swizzle of TMA and the wgmma/tcgen05
  /// descriptors (0: none) for elements of `elementBits`.
  static LinearLayout sharedNVMMA(const std::vector<int64_t> &shape,
                                  const std::vector<int64_t> &order,
                                  unsigned elementBits, int swizzleBytes);

  //===--------------------------------------------------------------------===//
  // Tensor-memory layouts (sm_100a): the (row = lane, column) a value of a
  // register of a warp sits at, as tcgen05.ld/st access it.
  //===--------------------------------------------------------------------===//

  /// tcgen05.ld/st 32x32b: each warp's lane i reads TMEM lane 32*warp + i,
  /// registers walk the columns.
  static LinearLayout tmem32x32b(const std::vector<int64_t> &shape,
                                 int numWarps);
  /// tcgen05.ld/st 16x64b, 16x128b, 16x256b: a warp covers its 32 lanes as
  /// two 16-lane accesses of 64, 128 or 256 bits a repetition (PTX ISA
  /// 9.7.16.2.3.1, "Matrix fragments for tcgen05.ld/st"); 4 warps.
  static LinearLayout tmem16x64b(const std::vector<int64_t> &shape,
                                 int numWarps);
  static LinearLayout tmem16x128b(const std::vector<int64_t> &shape,
                                  int numWarps);
  static LinearLayout tmem16x256b(const std::vector<int64_t> &shape,
                                  int numWarps);

private:
  /// Output bit offsets (row-major) and the total output bits.
  std::vector<unsigned> outBitOffsets() const;
  unsigned totalOutBits() const;
  /// A basis as flattened output bits.
  uint64_t flattenCoords(const Coords &c) const;
  Coords unflattenCoords(uint64_t bits) const;
  /// All bases, in input order, flattened.
  std::vector<uint64_t> columns() const;
  /// This layout's output sizes over `divisor`'s (nothing if one does not
  /// divide).
  std::optional<NamedSizes> quotientSizes(const LinearLayout &divisor) const;
  int inIndex(const std::string &name) const;
  int outIndex(const std::string &name) const;

  NamedBases ins;
  NamedSizes outs;
};

/// A block of a tile in registers (LinearLayout::slice): its layout and,
/// per register of it, the register of the whole tile's layout that holds
/// the same element.
struct RegisterBlock {
  LinearLayout layout;
  std::vector<int64_t> registers;
};

} // namespace tilec

#endif // TILEC_LAYOUT_LINEARLAYOUT_H
