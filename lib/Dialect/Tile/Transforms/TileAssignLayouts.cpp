//===- TileAssignLayouts.cpp - give every tile a linear layout ------------===//
//
// Walks each kernel in program order and gives every tile value a
// #tile.linear layout:
//   - global loads: coalesced, vectorized blocked layouts (16 bytes a thread
//     along the contiguous dim);
//   - dot: mma.sync operand and accumulator fragment layouts (wgmma's
//     accumulator on sm_90a, tcgen05.ld's on sm_100a where the dot can
//     run on those);
//   - reduce / expand_dims / transpose / reshape: derived from the operand;
//   - blocks (extract_slice, insert_slice, concat): the tile's registers
//     where the block is whole registers of its layout (LinearLayout::slice),
//     else a coalesced layout (the block moves through shared memory);
//   - splat, iota, constants, broadcast: the coalesced layout of their shape;
//   - elementwise ops: the layout of their first operand that is not cheap to
//     rematerialize (splat, constant, iota, broadcast, expand_dims);
//   - loops and branches: carried values keep the layout they enter with.
// Where an operand's layout differs from the one its user needs, a
// tile.convert_layout is inserted; canonicalization then removes the ones
// that can be rematerialized or sunk into cheaper operands.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/TargetInfo.h"
#include "tilec/Dialect/Tile/TileDialect.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

#define DEBUG_TYPE "tile-assign-layouts"

namespace tilec {
#define GEN_PASS_DEF_TILEASSIGNLAYOUTS
#include "tilec/Dialect/Tile/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

constexpr int64_t kMaxElementsPerThread = 1024;

bool isTile(Value v) { return isa<RankedTensorType>(v.getType()); }

std::vector<int64_t> shapeOf(Type t) {
  auto s = cast<RankedTensorType>(t).getShape();
  return std::vector<int64_t>(s.begin(), s.end());
}

unsigned bitsOf(Type t) {
  return cast<RankedTensorType>(t).getElementType().getIntOrFloatBitWidth();
}

class LayoutAssigner {
public:
  LayoutAssigner(int numWarps, const TargetInfo &target)
      : numWarps(numWarps), hopper(target.wgmma), blackwell(target.tcgen05) {}

  LogicalResult run(Block &block) {
    for (Operation &op : llvm::make_early_inc_range(block))
      if (failed(visit(&op)))
        return failure();
    return success();
  }

private:
  int numWarps;
  bool hopper;
  bool blackwell;

  /// The element types wgmma and tcgen05 take: 16-bit and 8-bit floats,
  /// and f32 (as tf32), into f32; i8 into i32.
  static bool asyncMMATypes(DotOp dot) {
    Type in = cast<RankedTensorType>(dot.getA().getType()).getElementType();
    Type acc = cast<RankedTensorType>(dot.getType()).getElementType();
    unsigned bits = in.getIntOrFloatBitWidth();
    return in.isInteger(8) ? acc.isInteger(32)
                           : acc.isF32() && (bits == 16 || bits == 8 ||
                                             in.isF32());
  }

  /// Whether a dot can run as tcgen05 (sm_100a) in a warp-specialized
  /// GEMM loop: both operands loaded from views (TMA copies them), 16-bit
  /// inputs, or K-major 8-bit floats or f32 (as tf32), with f32
  /// accumulation, or K-major i8 with i32 accumulation, 128 rows (one
  /// CTA's M), N a multiple of 16 up to 256; onto an accumulator the
  /// loop carries for it alone from zero; whole
  /// warpgroups read the accumulator out of tensor memory (tcgen05.ld
  /// 32x32b), at most 128 of its values a thread.
  bool isTCGen05Dot(DotOp dot) {
    auto shape = shapeOf(dot.getType());
    unsigned bits = bitsOf(dot.getA().getType());
    if (!blackwell || numWarps % 4 || !asyncMMATypes(dot) ||
        shape[0] != 128 || shape[1] % 16 || shape[1] > 256 ||
        shape[1] % (numWarps / 4) || 128 * shape[1] / (32 * numWarps) > 128 ||
        !isWholeLoad(dot.getA()) || !isWholeLoad(dot.getB()) ||
        (bits != 16 && nonKMajorOperand(dot) >= 0))
      return false;
    BlockArgument iterArg = carriedAccumulator(dot);
    auto loop = dyn_cast<scf::ForOp>(dot->getParentOp());
    if (!iterArg || !isa<func::FuncOp>(loop->getParentOp()) ||
        !isZero(loop.getInitArgs()[iterArg.getArgNumber() - 1]))
      return false;
    return true;
  }

  /// Whether a dot can run as tcgen05 in a GEMM loop: it can by itself
  /// (isTCGen05Dot), and so can every dot of its loop (two accumulators a
  /// loop, as swiglu's gate and up), whose accumulators fit tensor memory
  /// together (512 columns) and the epilogue's registers (at most 128
  /// values a thread in all).
  bool isTCGen05Candidate(DotOp dot) {
    if (!isTCGen05Dot(dot))
      return false;
    int64_t columns = 0, perThread = 0;
    for (DotOp d : dot->getBlock()->getOps<DotOp>()) {
      if (!isTCGen05Dot(d))
        return false;
      auto shape = shapeOf(d.getType());
      columns += shape[1];
      perThread += shape[0] * shape[1] / (32 * numWarps);
    }
    return columns <= 512 && perThread <= 128;
  }

  /// sm_100a attention (FlashAttention-4's structure): a kernel's
  /// top-level loop whose two dots are S = Q·Kᵀ, from zero each iteration
  /// and read by the loop's math, and O = P·V, P 16-bit math on S (the
  /// softmax) that the MMA reads from tensor memory, onto the value the
  /// loop carries for O times a factor (the rescale; 0 · x = 0, so the
  /// first iteration's rescale of the zero init is skipped). S, P and O
  /// live in tensor memory (S two deep, P one, O one: at most 512
  /// columns); whole warpgroups read them (tcgen05.ld 32x32b, at most 128
  /// values of S and of O a thread). Returns the pair (S's dot first), or
  /// none.
  std::optional<std::pair<DotOp, DotOp>> attentionPair(DotOp dot) {
    auto loop = dyn_cast<scf::ForOp>(dot->getParentOp());
    if (!blackwell || numWarps % 4 || !loop ||
        !isa<func::FuncOp>(loop->getParentOp()))
      return std::nullopt;
    SmallVector<DotOp> dots(loop.getBody()->getOps<DotOp>());
    if (dots.size() != 2)
      return std::nullopt;
    DotOp s = dots[0], o = dots[1];
    auto fits = [&](DotOp d) {
      auto shape = shapeOf(d.getType());
      return cast<RankedTensorType>(d.getType()).getElementType().isF32() &&
             bitsOf(d.getB().getType()) == 16 && shape[0] == 128 &&
             shape[1] % 16 == 0 && shape[1] <= 256 &&
             shape[1] % (numWarps / 4) == 0 &&
             128 * shape[1] / (32 * numWarps) <= 128 &&
             isWholeLoad(d.getB());
    };
    int64_t n = shapeOf(s.getType())[1], d = shapeOf(o.getType())[1];
    Type pType = cast<RankedTensorType>(o.getA().getType()).getElementType();
    if (!fits(s) || !fits(o) || !isWholeLoad(s.getA()) ||
        bitsOf(s.getA().getType()) != 16 || !isZero(s.getAcc()) ||
        pType != cast<RankedTensorType>(o.getB().getType()).getElementType() ||
        isLoaded(o.getA()) || 2 * n + n / 2 + d > 512)
      return std::nullopt;
    // P comes from S.
    SetVector<Operation *> producers;
    BackwardSliceOptions options;
    options.omitBlockArguments = true;
    options.omitUsesFromAbove = false; // (through the mask's branches)
    (void)getBackwardSlice(o.getA(), &producers, options);
    if (!producers.contains(s))
      return std::nullopt;
    // O: the loop carries it for the dot, times a factor, from zero.
    BlockArgument acc = rescaledAccumulator(o);
    if (!acc || !isZero(loop.getInitArgs()[acc.getArgNumber() - 1]))
      return std::nullopt;
    return std::make_pair(s, o);
  }

  /// The iter_arg a dot's accumulator is, times a factor (arith.mulf, the
  /// iter_arg read by nothing else), the dot's result only carried back to
  /// it; or null.
  static BlockArgument rescaledAccumulator(DotOp dot) {
    auto loop = dyn_cast<scf::ForOp>(dot->getParentOp());
    auto mul = dot.getAcc().getDefiningOp<arith::MulFOp>();
    if (!loop || !mul || !mul->hasOneUse() || !dot.getResult().hasOneUse())
      return {};
    for (Value v : mul->getOperands()) {
      Value src = v;
      while (auto cv = src.getDefiningOp<ConvertLayoutOp>())
        src = cv.getSrc();
      auto arg = dyn_cast<BlockArgument>(src);
      if (!arg || arg.getOwner() != loop.getBody() || arg.getArgNumber() == 0 ||
          !arg.hasOneUse() || !v.hasOneUse())
        continue;
      if (loop.getBody()->getTerminator()->getOperand(arg.getArgNumber() - 1) ==
          dot.getResult())
        return arg;
    }
    return {};
  }

  /// Whether a dot can run as wgmma: B loaded from a view (possibly
  /// transposed; TMA can bring it into shared memory), A loaded too or a
  /// 16-bit value computed in registers (wgmma's register A), 16-bit or
  /// fp8 inputs with f32 accumulation, i8 with i32, f32 (as tf32) with
  /// f32; whole warpgroups each holding 64-row blocks, N a multiple of 8
  /// up to 256.
  bool isWgmmaCandidate(DotOp dot) {
    auto shape = shapeOf(dot.getType());
    unsigned bits = bitsOf(dot.getA().getType());
    // 8-bit and tf32 operands are read K-major only: A loaded as is, B
    // loaded as NxK and transposed (tile-select-mma-and-tma says so in a remark
    // when they are not; their accumulator keeps the mma.sync layout). An
    // 8-bit A may also be computed (fp8 attention's P): wgmma reads it
    // from registers. An 8-bit B loaded as KxN (fp8 attention's V, its
    // rows possibly renamed) is the load partition's K-major copy.
    bool anyMajor = bits == 16;
    bool kMajorCopy = hopper && bits == 8 && kMajorCopyLoad(dot);
    int notKMajor = anyMajor ? -1 : nonKMajorOperand(dot);
    return hopper &&
           LinearLayout::wgmmaWarpGroups(shape[0], shape[1], numWarps) &&
           asyncMMATypes(dot) &&
           (isLoaded(dot.getB()) || kMajorCopy) &&
           (anyMajor || ((isLoaded(dot.getA()) || bits == 8) &&
                         (notKMajor < 0 || (notKMajor == 1 && kMajorCopy))));
  }

  /// The wgmma accumulator of an MxN dot of a candidate.
  LinearLayout wgmmaAccumulator(const std::vector<int64_t> &shape) {
    auto [wgM, wgN] =
        *LinearLayout::wgmmaWarpGroups(shape[0], shape[1], numWarps);
    return LinearLayout::wgmmaAccumulator(shape, wgM, wgN);
  }

  /// A tile loaded whole (no mask, zero padding) from a view, possibly
  /// transposed: what TMA may copy.
  static bool isWholeLoad(Value v) {
    bool transposed;
    LoadOp load = operandLoad(v, transposed);
    return load && !load.getMask() && load.padsWithZero();
  }

  /// A zero tile (through the conversions this pass put on it).
  static bool isZero(Value v) {
    while (auto cv = v.getDefiningOp<ConvertLayoutOp>())
      v = cv.getSrc();
    return matchPattern(v, m_AnyZeroFloat()) || matchPattern(v, m_Zero());
  }

  /// A tile loaded from a view (through reshapes dropping unit dims),
  /// possibly transposed; or a 16-bit gathered one, which the load
  /// partition's threads may gather into a slot as TMA would copy a load
  /// (paged K and V).
  static bool isLoaded(Value v) {
    bool transposed;
    if (operandLoad(v, transposed))
      return true;
    Operation *src = operandSource(v, transposed);
    return isa_and_nonnull<GatherOp>(src) &&
           bitsOf(src->getResult(0).getType()) == 16;
  }

  LinearLayout defaultLayout(Type t, int contigDim = -1) {
    auto shape = shapeOf(t);
    if (contigDim < 0)
      contigDim = shape.size() - 1;
    return LinearLayout::coalesced(shape, bitsOf(t), numWarps, contigDim);
  }

  static LinearLayout::Coords toCoords(ArrayRef<int64_t> a) {
    return LinearLayout::Coords(a.begin(), a.end());
  }

  void setLayout(Value v, const LinearLayout &l) {
    v.setType(withLayout(v.getType(), l));
  }

  /// Makes operand `idx` of `user` have layout `l`, converting if needed.
  void require(Operation *user, unsigned idx, const LinearLayout &l) {
    Value v = user->getOperand(idx);
    if (getLayoutAttr(v.getType()) && getLayout(v.getType()) == l)
      return;
    OpBuilder b(user);
    Value c = ConvertLayoutOp::create(b, user->getLoc(),
                                      withLayout(v.getType(), l), v);
    user->setOperand(idx, c);
  }

  /// An in_bounds load reads back what an in_bounds store of the same view
  /// wrote (split-K's partial tiles): the store's layout, so that neither
  /// side converts (the stored value, an accumulator, keeps its layout).
  static std::optional<LinearLayout> inBoundsLayout(LoadOp load) {
    if (!load.getInBounds())
      return std::nullopt;
    for (Operation *user : load.getTensor().getUsers())
      if (auto store = dyn_cast<StoreOp>(user)) {
        auto stored = cast<RankedTensorType>(store.getValue().getType());
        if (store.getInBounds() && getLayoutAttr(stored) &&
            stored.getShape() ==
                cast<RankedTensorType>(load.getType()).getShape())
          return getLayout(stored);
      }
    return std::nullopt;
  }

  LogicalResult visit(Operation *op) {
    // Values that already carry a layout keep it.
    auto needs = [&](Value v) { return isTile(v) && !getLayoutAttr(v.getType()); };

    if (auto load = dyn_cast<LoadOp>(op)) {
      if (needs(load.getResult()))
        setLayout(load.getResult(),
                  inBoundsLayout(load).value_or(defaultLayout(
                      load.getType(),
                      load.getTensor().getType().getContiguousDim())));
      if (load.getMask())
        require(op, load.getMaskMutable()[0].getOperandNumber(),
                getLayout(load.getType()));
      return success();
    }
    if (auto store = dyn_cast<StoreOp>(op)) {
      // Global writes are coalesced: a value whose layout gives a thread
      // fewer than 16 contiguous bytes along the view's contiguous dim is
      // converted (through conflict-free shared memory) first.
      int cd = store.getTensor().getType().getContiguousDim();
      Type t = store.getValue().getType();
      if (cd < 0)
        cd = shapeOf(t).size() - 1;
      LinearLayout coalesced = defaultLayout(t, cd);
      LinearLayout current = getLayout(t);
      // (An in_bounds store, the compiler's own scratch, is read back by
      // in_bounds loads in the same layout: no conversion either way.)
      // (A reducing store keeps its value's layout: its reductions are
      // 8-byte vectors from an accumulator, where a conversion would cost
      // shared memory and a barrier each time, in a loop.)
      if (!store.getInBounds() && !store.getReduce() &&
          current.getContiguity(cd) < coalesced.getContiguity(cd))
        require(op, 0, coalesced);
      if (store.getMask())
        require(op, store.getMaskMutable()[0].getOperandNumber(),
                getLayout(store.getValue().getType()));
      return success();
    }
    // Element-wise addressing: the index tiles and the mask take the
    // layout of the value (a gather's result: the coalesced layout of its
    // shape; a compare-and-swap's: its `cmp`'s).
    auto alignOperands = [&](MutableArrayRef<OpOperand> operands,
                             const LinearLayout &l) {
      for (OpOperand &o : operands)
        require(op, o.getOperandNumber(), l);
    };
    auto alignIndexed = [&](MutableOperandRange indices,
                            MutableOperandRange mask, const LinearLayout &l) {
      alignOperands(indices, l);
      alignOperands(mask, l);
    };
    if (auto g = dyn_cast<GatherOp>(op)) {
      if (needs(g.getResult()))
        setLayout(g.getResult(), defaultLayout(g.getType()));
      alignIndexed(g.getIndicesMutable(), g.getMaskMutable(),
                   getLayout(g.getType()));
      return success();
    }
    if (auto sc = dyn_cast<ScatterOp>(op)) {
      alignIndexed(sc.getIndicesMutable(), sc.getMaskMutable(),
                   getLayout(sc.getValue().getType()));
      return success();
    }
    if (auto rmw = dyn_cast<AtomicRMWOp>(op)) {
      LinearLayout l = getLayout(rmw.getValue().getType());
      setLayout(rmw.getResult(), l);
      alignIndexed(rmw.getIndicesMutable(), rmw.getMaskMutable(), l);
      return success();
    }
    if (auto cas = dyn_cast<AtomicCASOp>(op)) {
      LinearLayout l = getLayout(cas.getCmp().getType());
      setLayout(cas.getResult(), l);
      alignOperands(cas.getValueMutable(), l);
      alignIndexed(cas.getIndicesMutable(), cas.getMaskMutable(), l);
      return success();
    }
    if (auto dot = dyn_cast<DotOp>(op)) {
      auto shape = shapeOf(dot.getType());
      auto pair = attentionPair(dot);
      if (pair || isTCGen05Candidate(dot)) {
        // The accumulator in the layout tcgen05.ld gives (the epilogue's;
        // attention's softmax reads S, and its rescale reads and writes
        // O, with no conversion), and so is P, which the compute partition
        // stores for P·V (tcgen05.st); the operands the MMAs read from
        // shared memory in mma.sync fragments (tile-insert-channels
        // replaces them with slots; the plain twin's mma.sync reads them,
        // its accumulators re-laid).
        auto [wm, wn] = LinearLayout::mmaWarpSplit(shape[0], shape[1],
                                                   numWarps, bool(pair));
        unsigned bits = bitsOf(dot.getA().getType());
        auto aShape = shapeOf(dot.getA().getType());
        require(op, 0,
                pair && dot == pair->second
                    ? LinearLayout::tmem32x32b(aShape, numWarps)
                    : LinearLayout::mmaOperand(0, aShape, bits, wm, wn));
        require(op, 1,
                LinearLayout::mmaOperand(1, shapeOf(dot.getB().getType()),
                                         bits, wm, wn));
        LinearLayout acc = LinearLayout::tmem32x32b(shape, numWarps);
        require(op, 2, acc);
        setLayout(dot.getResult(), acc);
        return success();
      }
      if (isWgmmaCandidate(dot)) {
        // The wgmma accumulator (warpgroups along M, then splitting N);
        // the operands in the matching mma.sync fragments, which
        // tile-warp-specialize replaces with shared-memory slots (mma.sync
        // computes the same if it does not). A's fragments are also
        // wgmma's register-A layout (LinearLayout::wgmmaOperandA).
        unsigned bits = bitsOf(dot.getA().getType());
        auto [wgM, wgN] =
            *LinearLayout::wgmmaWarpGroups(shape[0], shape[1], numWarps);
        require(op, 0,
                LinearLayout::mmaOperand(0, shapeOf(dot.getA().getType()),
                                         bits, 4 * wgM, wgN));
        require(op, 1,
                LinearLayout::wgmmaOperandB(shapeOf(dot.getB().getType()),
                                            bits, wgM, wgN));
        LinearLayout acc = LinearLayout::wgmmaAccumulator(shape, wgM, wgN);
        require(op, 2, acc);
        setLayout(dot.getResult(), acc);
        return success();
      }
      // Results reduced along rows or fed to another dot keep whole rows
      // within a warp.
      SetVector<Operation *> slice;
      getForwardSlice(dot.getResult(), &slice);
      bool alongM = llvm::any_of(slice, [](Operation *user) {
        auto red = dyn_cast<ReduceOp>(user);
        return isa<DotOp>(user) || (red && red.getDim() == 1);
      });
      // ... and so do dots whose A comes from another dot (chained dots, as
      // in attention's P·V).
      SetVector<Operation *> producers;
      BackwardSliceOptions options;
      options.omitBlockArguments = true;
      (void)getBackwardSlice(dot.getA(), &producers, options);
      alongM |= llvm::any_of(producers,
                             [](Operation *p) { return isa<DotOp>(p); });
      auto [wm, wn] =
          LinearLayout::mmaWarpSplit(shape[0], shape[1], numWarps, alongM);
      unsigned bits = bitsOf(dot.getA().getType());
      require(op, 0,
              LinearLayout::mmaOperand(0, shapeOf(dot.getA().getType()), bits,
                                       wm, wn));
      require(op, 1,
              LinearLayout::mmaOperand(1, shapeOf(dot.getB().getType()), bits,
                                       wm, wn));
      LinearLayout acc = LinearLayout::mmaAccumulator(shape, wm, wn);
      require(op, 2, acc);
      setLayout(dot.getResult(), acc);
      return success();
    }
    if (auto red = dyn_cast<ReduceOp>(op)) {
      LinearLayout src = getLayout(red.getSrc().getType());
      if (!src.isAxisAligned()) {
        src = defaultLayout(red.getSrc().getType());
        require(op, 0, src);
      }
      if (isTile(red.getResult()))
        setLayout(red.getResult(), src.reduceDim(red.getDim()));
      return success();
    }
    // Scans, sorts and top-k pair elements whose coordinates along the dim
    // differ in one bit: each bit needs a basis of its own.
    auto lineLayout = [&](Value v, int dim) {
      LinearLayout l = getLayout(v.getType());
      if (!l.bitSources(dim)) {
        l = defaultLayout(v.getType());
        require(op, 0, l);
      }
      return l;
    };
    if (auto scan = dyn_cast<ScanOp>(op)) {
      setLayout(scan.getResult(), lineLayout(scan.getSrc(), scan.getDim()));
      return success();
    }
    if (isa<SortOp, TopKOp>(op)) {
      int dim = op->getAttrOfType<IntegerAttr>("dim").getInt();
      LinearLayout l = lineLayout(op->getOperand(0), dim);
      for (unsigned i = 1; i < op->getNumOperands(); ++i)
        require(op, i, l);
      if (auto topk = dyn_cast<TopKOp>(op))
        l = l.truncateDim(dim, topk.getK());
      for (Value r : op->getResults())
        setLayout(r, l);
      return success();
    }
    if (isa<ExpandDimsOp, TransposeOp, ReshapeOp>(op)) {
      setLayout(op->getResult(0),
                shapeOpLayout(op, getLayout(op->getOperand(0).getType())));
      return success();
    }
    // Blocks: where the tile's layout keeps each thread's elements of the
    // block in whole registers, the block's layout is theirs (no data
    // moves); otherwise the block moves through shared memory.
    if (auto ex = dyn_cast<ExtractSliceOp>(op)) {
      auto s = getLayout(ex.getSrc().getType())
                   .slice(toCoords(ex.getOffsets()), shapeOf(ex.getType()));
      setLayout(ex.getResult(), s ? s->layout : defaultLayout(ex.getType()));
      return success();
    }
    if (auto in = dyn_cast<InsertSliceOp>(op)) {
      LinearLayout whole = getLayout(in.getDest().getType());
      if (auto s = whole.slice(toCoords(in.getOffsets()),
                               shapeOf(in.getSrc().getType())))
        require(op, 0, s->layout);
      setLayout(in.getResult(), whole);
      return success();
    }
    if (auto cat = dyn_cast<ConcatOp>(op)) {
      // Tiles of one shape: the first one's layout, the others' bits in
      // registers (some blocks of tiles of several shapes are not whole
      // registers in it: then they go through shared memory).
      LinearLayout whole =
          getLayout(cat.getInputs().front().getType())
              .extendInRegisters(shapeOf(cat.getType()));
      SmallVector<LinearLayout> blocks;
      for (auto [v, at] : llvm::zip(cat.getInputs(), cat.getBlockOffsets())) {
        auto s = whole.slice(toCoords(at), shapeOf(v.getType()));
        if (!s)
          break;
        blocks.push_back(s->layout);
      }
      if (blocks.size() == cat.getInputs().size())
        for (auto [i, l] : llvm::enumerate(blocks))
          require(op, i, l);
      else
        whole = defaultLayout(cat.getType());
      setLayout(cat.getResult(), whole);
      return success();
    }
    if (auto bc = dyn_cast<BroadcastOp>(op)) {
      LinearLayout res = getLayoutAttr(bc.getType())
                             ? getLayout(bc.getType())
                             : defaultLayout(bc.getType());
      setLayout(bc.getResult(), res);
      std::vector<int> dims;
      auto srcShape = shapeOf(bc.getSrc().getType());
      auto resShape = shapeOf(bc.getType());
      for (unsigned d = 0; d < srcShape.size(); ++d)
        if (srcShape[d] != resShape[d])
          dims.push_back(d);
      require(op, 0, res.broadcastOperand(dims));
      return success();
    }
    if (auto cv = dyn_cast<ConvertLayoutOp>(op)) {
      if (needs(cv.getResult()))
        setLayout(cv.getResult(), getLayout(cv.getSrc().getType()));
      return success();
    }
    if (auto ph = dyn_cast<PhiloxOp>(op)) {
      LinearLayout l = getLayout(ph.getC0().getType());
      for (unsigned i = 1; i < 4; ++i)
        require(op, i, l);
      for (Value r : ph.getResults())
        setLayout(r, l);
      return success();
    }
    if (auto rand = dyn_cast<RandOp>(op)) {
      setLayout(rand.getResult(), getLayout(rand.getOffsets().getType()));
      return success();
    }
    if (isa<SplatOp, IotaOp>(op)) {
      if (needs(op->getResult(0)))
        setLayout(op->getResult(0), defaultLayout(op->getResult(0).getType()));
      return success();
    }
    if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
      if (!needs(cst.getResult()))
        return success();
      auto t = withLayout(cst.getType(), defaultLayout(cst.getType()));
      auto dense = cast<DenseElementsAttr>(cst.getValue());
      OpBuilder b(op);
      auto n = arith::ConstantOp::create(b, op->getLoc(), t, dense.reshape(t));
      cst.replaceAllUsesWith(n.getResult());
      cst.erase();
      return success();
    }
    if (auto forOp = dyn_cast<scf::ForOp>(op)) {
      // A wgmma accumulator is carried in its layout (what
      // tile-remove-layout-conversions would make of it), so that the code
      // after the loop sees it as the dot leaves it (a split-K partial is
      // written and read back in it).
      auto yielded = forOp.getBody()->getTerminator()->getOperands();
      for (auto [i, arg] : llvm::enumerate(forOp.getRegionIterArgs())) {
        auto dot = yielded[i].getDefiningOp<DotOp>();
        if (!isTile(arg) || !dot || dot->getParentOp() != forOp)
          continue;
        unsigned init = forOp.getInitsMutable()[i].getOperandNumber();
        // (sm_100a attention's O, carried times the rescale factor.)
        if (rescaledAccumulator(dot) == arg && attentionPair(dot)) {
          require(op, init,
                  LinearLayout::tmem32x32b(shapeOf(dot.getType()), numWarps));
          continue;
        }
        if (dot.getAcc() != arg)
          continue;
        if (isTCGen05Candidate(dot))
          require(op, init,
                  LinearLayout::tmem32x32b(shapeOf(dot.getType()), numWarps));
        else if (isWgmmaCandidate(dot))
          require(op, init, wgmmaAccumulator(shapeOf(dot.getType())));
      }
      for (auto [init, arg, res] :
           llvm::zip(forOp.getInitArgs(), forOp.getRegionIterArgs(),
                     forOp.getResults()))
        if (isTile(init)) {
          arg.setType(init.getType());
          res.setType(init.getType());
        }
      if (failed(run(*forOp.getBody())))
        return failure();
      Operation *yield = forOp.getBody()->getTerminator();
      for (auto [i, arg] : llvm::enumerate(forOp.getRegionIterArgs()))
        if (isTile(arg))
          require(yield, i, getLayout(arg.getType()));
      return success();
    }
    if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      if (failed(run(ifOp.getThenRegion().front())))
        return failure();
      Operation *thenYield = ifOp.thenYield();
      for (auto [i, res] : llvm::enumerate(ifOp.getResults()))
        if (isTile(res))
          res.setType(thenYield->getOperand(i).getType());
      if (!ifOp.getElseRegion().empty()) {
        if (failed(run(ifOp.getElseRegion().front())))
          return failure();
        Operation *elseYield = ifOp.elseYield();
        for (auto [i, res] : llvm::enumerate(ifOp.getResults()))
          if (isTile(res))
            require(elseYield, i, getLayout(res.getType()));
      }
      return success();
    }
    if (auto whileOp = dyn_cast<scf::WhileOp>(op)) {
      // (A spin-wait, such as deterministic attention backward's.) Carried
      // tiles keep their inits' layouts around the loop.
      for (auto [init, arg] :
           llvm::zip(whileOp.getInits(), whileOp.getBeforeArguments()))
        if (isTile(init))
          arg.setType(init.getType());
      if (failed(run(whileOp.getBefore().front())))
        return failure();
      for (auto [fwd, arg, res] :
           llvm::zip(whileOp.getConditionOp().getArgs(),
                     whileOp.getAfterArguments(), whileOp.getResults()))
        if (isTile(fwd)) {
          arg.setType(fwd.getType());
          res.setType(fwd.getType());
        }
      if (failed(run(whileOp.getAfter().front())))
        return failure();
      Operation *yield = whileOp.getAfter().front().getTerminator();
      for (auto [i, arg] : llvm::enumerate(whileOp.getBeforeArguments()))
        if (isTile(arg))
          require(yield, i, getLayout(arg.getType()));
      return success();
    }
    if (isa<scf::YieldOp, scf::ConditionOp, func::ReturnOp>(op))
      return success();
    if (op->getNumRegions() != 0 && !isa<ScanOp>(op)) {
      if (llvm::any_of(op->getResultTypes(),
                       [](Type t) { return isa<TensorType>(t); }))
        return op->emitOpError() << "is not supported on tiles";
      return success();
    }

    // Elementwise ops (arith, math): one layout for all tile operands and
    // results.
    if (op->getNumResults() == 0 ||
        llvm::none_of(op->getResults(), [](Value v) { return isTile(v); }))
      return success();
    // The operand whose layout is worth most (from a dot, then from memory
    // or a loop, then rematerializable values), the first among equals.
    Value anchor;
    int anchorWeight = -1;
    for (Value v : op->getOperands())
      if (isTile(v) && layoutWeight(v) > anchorWeight) {
        anchor = v;
        anchorWeight = layoutWeight(v);
      }
    if (!anchor)
      return op->emitOpError() << "produces a tile from no tile operand";
    LinearLayout l = getLayout(anchor.getType());
    for (unsigned i = 0; i < op->getNumOperands(); ++i)
      if (isTile(op->getOperand(i)))
        require(op, i, l);
    for (Value r : op->getResults())
      if (isTile(r))
        setLayout(r, l);
    return success();
  }
};

} // namespace

LogicalResult tilec::assignLayouts(func::FuncOp func, Target target) {
  return LayoutAssigner(tile::getNumWarps(func), TargetInfo::get(target))
      .run(func.getBody().front());
}

namespace {

struct TileAssignLayouts
    : public tilec::impl::TileAssignLayoutsBase<TileAssignLayouts> {
  using Base::Base;

  void runOnOperation() override {
    // The option is the warp count of kernels without tile.num_warps (which
    // its own verifier checks): a power of two a block can hold.
    if (numWarps < 1 || numWarps > 32 || (numWarps & (numWarps - 1))) {
      getOperation().emitError()
          << "tile-assign-layouts: num-warps is a power of two in 1..32, found "
          << int(numWarps);
      return signalPassFailure();
    }
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      int warps = func->hasAttr(kNumWarpsAttr) ? tile::getNumWarps(func)
                                               : int(numWarps);
      if (failed(LayoutAssigner(warps, TargetInfo::of(func))
                     .run(func.getBody().front())))
        return signalPassFailure();
    }
    // Each register of a tile is one value per thread in the lowering; past
    // a bound the program cannot fit a thread's registers and lowering it
    // would only take very long.
    WalkResult tooBig = getOperation().walk([&](Operation *op) {
      for (Value v : op->getResults()) {
        if (!getLayoutAttr(v.getType()))
          continue;
        int64_t regs = getLayout(v.getType()).getNumRegisters();
        if (regs > kMaxElementsPerThread) {
          // A constant the canonicalizer merged has no location of its
          // own: say it at its first located user, or at the kernel.
          Location loc = op->getLoc();
          for (Operation *user : op->getUsers())
            if (isa<UnknownLoc>(loc))
              loc = user->getLoc();
          if (isa<UnknownLoc>(loc))
            if (auto func = op->getParentOfType<func::FuncOp>())
              loc = func.getLoc();
          emitError(loc) << "'" << op->getName() << "' op makes a tile of "
                         << regs
                            << " elements per thread ("
                            << RankedTensorType::get(
                                   cast<RankedTensorType>(v.getType()).getShape(),
                                   getElementTypeOrSelf(v.getType()))
                            << " over " << 32 * getLayout(v.getType()).getNumWarps()
                            << " threads); at most " << kMaxElementsPerThread
                            << " fit: use smaller tiles or more warps";
          return WalkResult::interrupt();
        }
      }
      return WalkResult::advance();
    });
    if (tooBig.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
