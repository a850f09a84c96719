//===- TileSelectMMAAndTMA.cpp - select MMAs and TMA copies ---------------===//
//
// The tile-select-mma-and-tma pass: the first step of the Hopper/Blackwell
// fast path, which decides, per op, what hardware the later passes build
// on, and records each decision as a typed attribute:
//
//   %a = tile.load %A[%m, %k] {tgpu.tma = #tgpu.tma_copy<box = [128, 64],
//                                                        swizzle = 128>}
//   %d = tile.dot %a', %b', %c {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>}
//
// A load of a kernel's top-level loop gets `tgpu.tma` when TMA can copy it
// into a shared-memory slot ahead of its use, and so does a load before
// the loop whose tile only the loop's dots read (copied once, before the
// loop: Q of attention); every tile.dot gets `tgpu.mma`: wgmma with both
// operands in shared memory where the target has wgmma, the accumulator
// is in the wgmma layout and both operands are such loads (8-bit ones
// K-major; an 8-bit B loaded as KxN beside a computed A is a K-major copy,
// `b = kmajor_copy`, its load left to the load partition's threads), else
// mma.sync. Remarks say why a load
// or dot of a main loop did not get the fast choice.
// tile-warp-specialize and tile-pipeline-schedule read these attributes.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TGPU/TGPUDialect.h"
#include "tilec/Dialect/Tile/TargetInfo.h"
#include "tilec/Dialect/Tile/TileDialect.h"
#include "tilec/Dialect/TGPU/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/MapVector.h"

#define DEBUG_TYPE "tile-select-mma-and-tma"

namespace tilec {
#define GEN_PASS_DEF_TILESELECTMMAANDTMA
#include "tilec/Dialect/TGPU/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// Whether one box can serve tiles of both boxes `a` and `b`: they agree
/// but in the rows (the dim before the innermost), where one divides the
/// other; the box with fewer rows then fills the other's slot in rows of
/// boxes (a 128- and a 64-row tile of B given N x K: a 128x192 tile's
/// column blocks).
bool boxesShareRows(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  if (a.size() != b.size() || a.size() < 2)
    return false;
  size_t r = a.size() - 2;
  for (size_t d = 0; d < a.size(); ++d)
    if (d != r && a[d] != b[d])
      return false;
  return std::max(a[r], b[r]) % std::min(a[r], b[r]) == 0;
}

/// The TMA copy that can bring `load` into a slot ahead of its iteration
/// of `loop` (`whole`: of its box, its mask left to registers); says why
/// there is none.
FailureOr<tgpu::TMASlot> planCopy(LoadOp load, scf::ForOp loop,
                                  std::string &why, bool whole = false) {
  auto view = dyn_cast<BlockArgument>(load.getTensor());
  TensorViewType vt = load.getTensor().getType();
  auto tt = cast<RankedTensorType>(load.getType());
  if (!view || vt.getRank() != tt.getRank()) {
    why = "the view is not a kernel argument of the tile's rank";
    return failure();
  }
  if (failed(tgpu::checkTMAView(vt, why)))
    return failure();
  if (!load.padsWithZero()) {
    why = "the padding is not zero";
    return failure();
  }
  if (load.getMask() && !whole) {
    why = "the load has a mask (TMA copies whole boxes)";
    return failure();
  }
  if (!llvm::all_of(load.getOffsets(),
                    [&](Value o) { return isScalarIndex(o, loop); })) {
    why = "the indices are not scalars of the induction variable";
    return failure();
  }
  // A tile only MMAs read takes their swizzled slot; in a loop of dots,
  // one that registers read back (a per-row vector, a side input of the
  // loop's math) takes any slot TMA can fill, for the load partition.
  bool dots = !loop.getBody()->getOps<DotOp>().empty();
  FailureOr<tgpu::TMASlot> slot = !dots || onlyDotsOf(load, loop)
                                      ? tgpu::planTMASlot(tt, why)
                                      : tgpu::planRegisterSlot(tt, why);
  if (failed(slot))
    return failure();
  // A view TMA reads is a TMA view everywhere, with one box: its other
  // uses must be extents, or loads of this loop (or copied once before
  // it) whose tile shape is the same or takes the same box (MLA's Q: its
  // 512 latent columns and its 64 rotary ones, both in 64-column boxes).
  for (Operation *user : view.getUsers()) {
    if (isa<DimOp>(user) || user == load.getOperation())
      continue;
    auto other = dyn_cast<LoadOp>(user);
    bool same = other && (other->getBlock() == loop.getBody() ||
                          (other->getBlock() == loop->getBlock() &&
                           other->isBeforeInBlock(loop) &&
                           onlyDotsOf(other, loop)));
    if (same && other.getType() != load.getType()) {
      std::string unused;
      FailureOr<tgpu::TMASlot> its = tgpu::planTMASlot(
          cast<RankedTensorType>(other.getType()), unused);
      same = succeeded(its) && its->swizzle == slot->swizzle &&
             boxesShareRows(its->box, slot->box);
    }
    if (!same) {
      why = "the view has other uses";
      return failure();
    }
  }
  return slot;
}

/// Whether wgmma can read `dot`'s A from registers: 16-bit elements in the
/// wgmma register-A layout. Where A arrives through a layout conversion,
/// the layout algebra decides what the conversion costs: a permutation of
/// each thread's registers is free; one that moves data between threads
/// goes through shared memory (`throughShared`), where wgmma can read it
/// by descriptor instead of loading it back.
LogicalResult checkRegisterA(DotOp dot, int numWarps, std::string &why,
                             bool &throughShared) {
  throughShared = false;
  auto a = cast<RankedTensorType>(dot.getA().getType());
  unsigned bits = a.getElementType().getIntOrFloatBitWidth();
  if (bits != 16 && bits != 8) {
    why = "a register A has 16-bit or 8-bit elements";
    return failure();
  }
  std::vector<int64_t> shape(a.getShape().begin(), a.getShape().end());
  auto acc = cast<RankedTensorType>(dot.getType());
  auto split = LinearLayout::wgmmaWarpGroups(acc.getShape()[0],
                                             acc.getShape()[1], numWarps);
  if (!split) {
    why = "the dot is not a wgmma shape";
    return failure();
  }
  LinearLayout want =
      LinearLayout::wgmmaOperandA(shape, split->first, split->second, bits);
  if (!getLayoutAttr(a) || getLayout(a) != want) {
    why = "A is not in the wgmma register-A layout";
    return failure();
  }
  auto cv = dot.getA().getDefiningOp<ConvertLayoutOp>();
  if (!cv || !getLayoutAttr(cv.getSrc().getType()))
    return success();
  LinearLayout from = getLayout(cv.getSrc().getType());
  // (register, lane, warp) of the wanted layout -> those of the source
  // holding the same element: a register permutation keeps lane and warp.
  std::optional<LinearLayout> moves = want.invertAndCompose(from);
  bool permutation = moves.has_value();
  for (InDim d : {InDim::Register, InDim::Lane, InDim::Warp}) {
    for (int64_t i = 0, e = want.getInDimSizeLog2(inDimName(d));
         permutation && i < e; ++i) {
      LinearLayout::NamedValues in = {{"register", 0}, {"lane", 0}, {"warp", 0}};
      in[int(d)].second = int64_t(1) << i;
      // Lanes and warps stay; registers stay registers.
      for (auto &[name, value] : moves->apply(in))
        if (name != "register" &&
            value != (name == inDimName(d) ? in[int(d)].second : 0))
          permutation = false;
    }
  }
  throughShared = !permutation;
  return success();
}

/// sm_100a: tcgen05 with both operands in shared memory where
/// tile-assign-layouts gave the dot the accumulator layout of tcgen05.ld
/// (it checked what the MMA needs: a GEMM loop's one dot, 128 rows, ...)
/// and TMA copies both operands; says why not.
tgpu::MMAAttr selectTCGen05(DotOp dot, int numWarps, std::string &why) {
  MLIRContext *ctx = dot.getContext();
  auto acc = cast<RankedTensorType>(dot.getType());
  std::vector<int64_t> shape(acc.getShape().begin(), acc.getShape().end());
  if (!getLayoutAttr(acc) ||
      getLayout(acc) != LinearLayout::tmem32x32b(shape, numWarps)) {
    why = "the accumulator is not in tensor memory (tcgen05 runs a GEMM "
          "loop's one dot: 16-bit or K-major 8-bit inputs loaded from views, "
          "f32 accumulation from zero, 128 rows, N a multiple of 16 up to 256, "
          "at most 128 accumulator values a thread; or attention's two: S = "
          "Q·Kᵀ and O = P·V, 16-bit, D and the key block at most 256)";
    return tgpu::MMAAttr::mmaSync(ctx);
  }
  auto aSource = tgpu::OperandSource::Shared;
  for (auto [idx, v] : llvm::enumerate(dotOperands(dot))) {
    bool transposed;
    LoadOp load = operandLoad(v, transposed);
    if (!load || !tgpu::getTMACopy(load)) {
      // A 16-bit A computed in registers in the layout of tcgen05.st
      // 32x32b (attention's P, which assign-layouts laid out so): the
      // compute partition writes it into tensor memory for the MMA.
      auto a = cast<RankedTensorType>(v.getType());
      std::vector<int64_t> aShape(a.getShape().begin(), a.getShape().end());
      if (idx == 0 && !load && getLayoutAttr(a) &&
          a.getElementType().getIntOrFloatBitWidth() == 16 &&
          getLayout(a) == LinearLayout::tmem32x32b(aShape, numWarps)) {
        aSource = tgpu::OperandSource::TensorMemory;
        continue;
      }
      why = std::string(idx == 0 ? "A" : "B") + " is not a load TMA copies";
      return tgpu::MMAAttr::mmaSync(ctx);
    }
  }
  return tgpu::MMAAttr::get(ctx, tgpu::MMAKind::TCGen05, aSource,
                            tgpu::OperandSource::Shared);
}

/// The MMA for `dot` on `target` with the kernel's `numWarps`; says why
/// it is not wgmma (tcgen05 on sm_100a).
tgpu::MMAAttr selectMMA(DotOp dot, const TargetInfo &target, int numWarps,
                        std::string &why) {
  MLIRContext *ctx = dot.getContext();
  auto mmaSync = tgpu::MMAAttr::mmaSync(ctx);
  if (target.tcgen05)
    return selectTCGen05(dot, numWarps, why);
  if (!target.wgmma) {
    why = "the target has no wgmma";
    return mmaSync;
  }
  auto acc = cast<RankedTensorType>(dot.getType());
  // 8-bit and tf32 wgmma read K-major operands only (said first:
  // assign-layouts gave such a dot no wgmma accumulator either).
  unsigned bits =
      getElementTypeOrSelf(dot.getA().getType()).getIntOrFloatBitWidth();
  // (Unless B, loaded as KxN in a top-level loop, is the load partition's
  // K-major copy.)
  bool kMajorCopy = bits == 8 && isa<scf::ForOp>(dot->getParentOp()) &&
                    isa<func::FuncOp>(dot->getParentOp()->getParentOp()) &&
                    kMajorCopyLoad(dot);
  if (int idx = bits == 16 ? -1 : nonKMajorOperand(dot);
      idx >= 0 && !(idx == 1 && kMajorCopy)) {
    why = std::string(bits == 8 ? "8-bit" : "tf32") +
          " wgmma reads K-major operands only; " +
          (idx == 0 ? "A is loaded as KxM and transposed"
                    : "B is loaded as KxN (load Bt as NxK and transpose it)");
    return mmaSync;
  }
  std::vector<int64_t> shape(acc.getShape().begin(), acc.getShape().end());
  // The shapes wgmma takes, a warpgroup's M at a time (a tile smaller than
  // the warpgroups' rows is laid out as their accumulator all the same,
  // broadcast, and then failed the op's verifier).
  int64_t k = cast<RankedTensorType>(dot.getA().getType()).getShape()[1];
  auto split = LinearLayout::wgmmaWarpGroups(shape[0], shape[1], numWarps);
  if (numWarps % 4 == 0 &&
      (!split || k % tgpu::wgmmaK(getElementTypeOrSelf(dot.getA().getType())))) {
    why = "the dot is " + std::to_string(shape[0]) + "x" +
          std::to_string(shape[1]) + "x" + std::to_string(k) +
          ", not a wgmma shape (M a multiple of 64; N a multiple of 8 up to "
          "256, and of 8 per warpgroup splitting it; K a multiple of " +
          std::to_string(
              tgpu::wgmmaK(getElementTypeOrSelf(dot.getA().getType()))) +
          ")";
    return mmaSync;
  }
  if (numWarps % 4 || !getLayoutAttr(acc) ||
      getLayout(acc) != LinearLayout::wgmmaAccumulator(shape, split->first,
                                                       split->second)) {
    why = "the accumulator is not in a wgmma layout";
    return mmaSync;
  }
  auto aSource = tgpu::OperandSource::Shared;
  for (auto [idx, v] : llvm::enumerate(dotOperands(dot))) {
    if (idx == 1 && kMajorCopy)
      continue;
    bool transposed;
    LoadOp load = operandLoad(v, transposed);
    // (A gather the load partition's threads make into the slot.)
    if (tgpu::isThreadGather(operandSource(v, transposed)))
      continue;
    if (!load || !tgpu::getTMACopy(load)) {
      if (idx == 0) {
        // wgmma reads A from registers in its register-A layout.
        // One that reaches that layout only through shared memory (in a
        // loop, once an iteration) is written there in wgmma's layout
        // instead, and read by descriptor: staged.
        std::string whyNot;
        bool throughShared;
        if (succeeded(checkRegisterA(dot, numWarps, whyNot, throughShared))) {
          bool inLoop = isa<scf::ForOp>(dot->getParentOp());
          aSource = throughShared && inLoop && tgpu::stagedA(dot)
                        ? tgpu::OperandSource::Staged
                        : tgpu::OperandSource::Registers;
          // (An 8-bit A from an accumulator, as fp8 attention's P, moves
          // between lanes: the accumulator's thread holds columns 8j + 2t
          // + {0, 1}, 8-bit A's 4t + {0..3}.)
          if (throughShared && inLoop &&
              aSource == tgpu::OperandSource::Registers &&
              getElementTypeOrSelf(v.getType()).getIntOrFloatBitWidth() == 8)
            mlir::emitRemark(dot.getLoc())
                << variantPrefix(dot->getParentOfType<func::FuncOp>())
                << "dot: its 8-bit A reaches wgmma's register-A layout "
                   "through shared memory each iteration; renaming A's "
                   "columns and B's rows alike (examples/attention_fp8.mlir) "
                   "keeps it in registers";
          continue;
        }
        why = "A is not a load TMA copies, and not in registers: " + whyNot;
        return mmaSync;
      }
      why = "B is not a load TMA copies";
      // Copies are planned for the kernel's top-level loops only.
      if (auto loop = dyn_cast<scf::ForOp>(dot->getParentOp()))
        if (!isa<func::FuncOp>(loop->getParentOp()))
          why += " (its loop is nested in an '" +
                 loop->getParentOp()->getName().getStringRef().str() +
                 "': TMA copies are planned for loops at the kernel's top "
                 "level)";
      return mmaSync;
    }
  }
  return tgpu::MMAAttr::get(ctx, tgpu::MMAKind::WGMMA, aSource,
                            kMajorCopy ? tgpu::OperandSource::KMajorCopy
                                       : tgpu::OperandSource::Shared);
}

struct TileSelectMMAAndTMA
    : public tilec::impl::TileSelectMMAAndTMABase<TileSelectMMAAndTMA> {
  using Base::Base;

  void runOnOperation() override {
    const TargetInfo &target = TargetInfo::of(getOperation());
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!func->hasAttr(kKernelAttr) || func.isExternal())
        continue;
      if (target.tma)
        for (auto loop : func.getBody().front().getOps<scf::ForOp>())
          planCopies(func, loop);
      int numWarps = getNumWarps(func);
      SmallVector<DotOp> dots;
      func.walk([&](DotOp dot) { dots.push_back(dot); });
      for (DotOp dot : dots) {
        std::string why;
        tgpu::MMAAttr mma = selectMMA(dot, target, numWarps, why);
        // A K-major copy's load is the load partition's threads', not
        // TMA's.
        if (mma.getB() == tgpu::OperandSource::KMajorCopy)
          kMajorCopyLoad(dot)->removeAttr(tgpu::kTMAAttr);
        if (mma.isAsync())
          dot->setAttr(tgpu::kMMAAttr, mma);
        else // (re-lays an accumulator laid out for tcgen05)
          tgpu::selectMMASync(dot);
        // Say why where wgmma (tcgen05) was within reach: a main-loop dot
        // on a target that has it.
        if (!mma.isAsync() && target.hasAsyncMMA() &&
            isa<scf::ForOp>(dot->getParentOp()))
          mlir::emitRemark(dot.getLoc())
              << variantPrefix(func) << "dot runs on mma.sync: " << why;
      }
    }
  }

  /// `load` without its mask, and the mask applied to what it reads
  /// (`arith.select mask, tile, 0`); returns the unmasked load.
  static LoadOp maskInRegisters(LoadOp load) {
    OpBuilder b(load);
    Location loc = load.getLoc();
    auto whole = LoadOp::create(b, loc, load.getType(), load.getTensor(),
                                load.getOffsets(), Value(),
                                load.getPaddingAttr(), load.getInBounds());
    whole->setDiscardableAttrs(load->getDiscardableAttrDictionary());
    auto type = cast<RankedTensorType>(load.getType());
    auto zero = arith::ConstantOp::create(
        b, loc, type,
        DenseElementsAttr::get(type, b.getZeroAttr(type.getElementType())));
    auto masked = arith::SelectOp::create(b, loc, load.getMask(),
                                          whole.getResult(), zero);
    load.getResult().replaceAllUsesWith(masked.getResult());
    load->erase();
    return whole;
  }

  void planCopies(func::FuncOp func, scf::ForOp loop) {
    // A gather only dots read (paged K and V: rows through a block table)
    // is gathered by the load partition's threads into the dots' slot.
    for (GatherOp gather : loop.getBody()->getOps<GatherOp>()) {
      if (!onlyDotsOf(gather.getOperation(), loop))
        continue;
      std::string why;
      if (threadGatherable(gather, loop, why))
        gather->setAttr(tgpu::kThreadGatherAttr, UnitAttr::get(&getContext()));
      else
        mlir::emitRemark(gather.getLoc())
            << variantPrefix(func)
            << "gather not made by the load partition's threads: " << why;
    }
    // The index tables those gathers read: the load partition's threads
    // read them for the gather's addresses, not a copy into a slot.
    llvm::SmallPtrSet<Operation *, 16> tables;
    SmallVector<Value> work;
    for (GatherOp gather : loop.getBody()->getOps<GatherOp>())
      if (gather->hasAttr(tgpu::kThreadGatherAttr))
        llvm::append_range(work, gather->getOperands().drop_front());
    while (!work.empty()) {
      Operation *def = work.pop_back_val().getDefiningOp();
      if (!def || def->getBlock() != loop.getBody() ||
          !tables.insert(def).second)
        continue;
      llvm::append_range(work, def->getOperands());
    }
    SmallVector<LoadOp> loads;
    for (LoadOp load : loop.getBody()->getOps<LoadOp>())
      if (!tables.contains(load))
        loads.push_back(load);
    // A tile loaded before the loop that only the loop's dots read (Q of
    // attention) is copied once a loop, into a slot the dots read.
    for (Operation *op = loop->getPrevNode(); op; op = op->getPrevNode())
      if (auto load = dyn_cast<LoadOp>(op))
        if (onlyDotsOf(load, loop))
          loads.push_back(load);
    bool dots = !loop.getBody()->getOps<DotOp>().empty();
    llvm::MapVector<Value, SmallVector<LoadOp>> byView;
    for (LoadOp load : loads) {
      std::string why;
      FailureOr<tgpu::TMASlot> slot = planCopy(load, loop, why);
      // A masked tile no dot reads, padded with zero, is copied whole and
      // masked in registers (masked-off elements inside the view are read,
      // then zeroed): the load partition copies it, not the compute
      // partition element by element.
      if (failed(slot) && dots && load.getMask() &&
          load->getBlock() == loop.getBody() && load.padsWithZero() &&
          !onlyDotsOf(load, loop)) {
        std::string whyWhole;
        slot = planCopy(load, loop, whyWhole, /*whole=*/true);
        if (succeeded(slot)) {
          load = maskInRegisters(load);
          mlir::emitRemark(load.getLoc())
              << variantPrefix(func)
              << "masked load copied whole, its mask applied in registers";
        }
      }
      if (failed(slot)) {
        mlir::emitRemark(load.getLoc())
            << variantPrefix(func) << "load not copied with TMA: " << why;
        continue;
      }
      load->setAttr(tgpu::kTMAAttr,
                    tgpu::TMACopyAttr::get(&getContext(), slot->box,
                                           slot->swizzle));
      byView[load.getTensor()].push_back(load);
    }
    // A view has one box: where its tiles have several row counts, the
    // fewest rows (planCopy checked that they divide the others). In
    // clusters of N along x, a tile every CTA of the cluster shares (its
    // offsets do not depend on program_id x) is copied a share a CTA
    // (tile-cluster-multicast): where its boxes side by side are not a
    // multiple of N, at most 1/N of its rows a box (fp8's B given N x K,
    // 256 rows of one box, is two boxes of 128 in clusters of two). On
    // sm_90a: sm_100a's clusters are CTA pairs that share no copy.
    auto clusterAttr = func->getAttrOfType<IntegerAttr>(kClusterAttr);
    int64_t cluster = clusterAttr && TargetInfo::of(func).wgmma
                          ? clusterAttr.getInt()
                          : 1;
    for (auto &[view, copies] : byView) {
      SmallVector<int64_t> box(tgpu::getTMACopy(copies.front()).getBox());
      if (box.size() < 2)
        continue;
      for (LoadOp load : copies) {
        int64_t rows = tgpu::getTMACopy(load).getBox()[box.size() - 2];
        auto shape = cast<RankedTensorType>(load.getType()).getShape();
        int64_t across = shape.back() / box.back();
        if (cluster > 1 && !dependsOnProgramId(load.getOffsets(), 0) &&
            across % cluster != 0 && rows == shape[shape.size() - 2] &&
            rows % (2 * cluster) == 0)
          rows /= cluster;
        box[box.size() - 2] = std::min(box[box.size() - 2], rows);
      }
      for (LoadOp load : copies)
        load->setAttr(tgpu::kTMAAttr,
                      tgpu::TMACopyAttr::get(
                          &getContext(), box,
                          tgpu::getTMACopy(load).getSwizzle()));
    }
  }
};

} // namespace

bool tilec::isScalarIndex(Value v, scf::ForOp loop) {
  if (v == loop.getInductionVar())
    return true;
  Operation *def = v.getDefiningOp();
  if (!def)
    return !loop->isAncestor(v.getParentBlock()->getParentOp());
  if (!loop->isAncestor(def))
    return true;
  if (def->getBlock() != loop.getBody() || !isMemoryEffectFree(def) ||
      def->getNumRegions() || isa<RankedTensorType>(v.getType()))
    return false;
  return llvm::all_of(def->getOperands(),
                      [&](Value o) { return isScalarIndex(o, loop); });
}
