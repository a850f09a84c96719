//===- IndexedOpsToLLVM.cpp - gather, scatter and atomics to PTX ----------===//
//
// The ops that address a view element by element (tile.gather,
// tile.scatter, tile.atomic_rmw, tile.atomic_cas). Register r's element is
// at base + sum(index_d[r] * stride_d), accessed under a predicate: every
// index inside its extent (compared unsigned, so negative ones are out) and
// the mask's register, if any.
//
// A layout may give one element to several registers or threads (a
// broadcast). Scatters and atomics write each element once: only threads
// whose free lane and warp bits (LinearLayout::getFreeVariableMasks) are
// zero access memory, and within a thread only the first register holding
// an element; the other registers take its result. An atomic whose result
// is used and whose layout repeats elements across threads passes the old
// values to every copy through shared memory (its scratch, see
// tile::getScratchBytes); one whose result is unused shares nothing. An
// owner acts for the copies in other threads, so release and acquire
// orderings get a barrier before and after (see finishAtomic).
//
// Gathers and scatters access a run of a thread's registers as one vector
// (up to 16 bytes) where AxisInfo proves that, along the tile dim the
// registers run, the index into the view's contiguous dim counts up by one
// from a multiple of the run's length and every other index and the mask
// stay the same (an embedding row `table[ids[i], c0 + iota]`, a paged-KV
// block); a uniform run-time check (vectorViewOk: unit stride, aligned
// base, extent and strides) picks that path, else each element alone.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "tilec/Dialect/TGPU/TGPUDialect.h"
#include "tilec/Layout/BankConflicts.h"

#include "tilec/Dialect/Tile/AxisInfo.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// Address (i64) and access predicate (i32) of register `reg` of an
/// element-wise access.
std::pair<Value, Value> indexedElement(Emitter &e, const ViewValues &view,
                                       ArrayRef<ValueRange> indices,
                                       ValueRange mask, Type elt,
                                       int64_t reg) {
  auto index = [&](unsigned d) { return e.sext64(indices[d][reg]); };
  return view.element(e, index, elt, mask.empty() ? Value() : mask[reg]);
}

/// The widest run of registers (elements) of `tile`, the gathered or
/// scattered tile, that one vector access may cover (see the file comment),
/// and the view dim it runs along. `indices` and `mask` are the op's own
/// (unconverted) operands.
std::pair<int64_t, int> indexedVector(TensorViewType view,
                                      RankedTensorType tile,
                                      ValueRange indices, Value mask) {
  int vd = view.getContiguousDim() >= 0 ? view.getContiguousDim()
                                        : view.getRank() - 1;
  LinearLayout layout = getLayout(tile);
  int64_t widest = std::max<int64_t>(1, 16 / storageBytes(tile.getElementType()));
  SmallVector<AxisInfo> infos;
  for (Value i : indices)
    infos.push_back(AxisInfo::get(i));
  std::optional<AxisInfo> maskInfo;
  if (mask)
    maskInfo = AxisInfo::get(mask);
  int64_t best = 1;
  for (unsigned td = 0; td < tile.getRank(); ++td) {
    int64_t vec = std::min(widest, layout.getContiguity(td));
    vec = std::min({vec, infos[vd].contiguity[td], infos[vd].divisibility[td]});
    for (unsigned d = 0; d < infos.size(); ++d)
      if (int(d) != vd)
        vec = std::min(vec, infos[d].constancy[td]);
    if (maskInfo)
      vec = std::min(vec, maskInfo->constancy[td]);
    best = std::max(best, vec);
  }
  return {best, vd};
}

struct GatherOpLowering : public OpConversionPattern<GatherOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(GatherOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    ViewValues view(op.getTensor().getType(), adaptor.getTensor());
    Type elt = op.getType().getElementType();
    int64_t numRegs = getLayout(op.getType()).getNumRegisters();
    ValueRange mask = op.getMask() ? adaptor.getMask() : ValueRange{};
    auto [vec, vd] = indexedVector(op.getTensor().getType(), op.getType(),
                                   op.getIndices(), op.getMask());
    auto path = [&](int64_t width) {
      SmallVector<Value> results;
      for (int64_t r = 0; r < numRegs; r += width) {
        auto [addr, pred] =
            indexedElement(e, view, adaptor.getIndices(), mask, elt, r);
        results.append(
            predicatedLoad(e, addr, pred, elt, width, op.getPaddingAttr()));
      }
      return results;
    };
    SmallVector<Type> types(numRegs, elt);
    SmallVector<Value> results = emitVectorOrScalar(
        rewriter, e.loc, vec,
        vec > 1 ? vectorViewOk(e, view, vd, vec, elt) : Value(), types, path);
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

/// tgpu.thread_gather: each run of registers proven consecutive along the
/// view's contiguous dim (indexedVector) is one cp.async into the slot,
/// zero-filled where masked off or outside the view (src-size 0), under
/// the uniform check of the view; element by element otherwise (loads
/// into registers, then shared stores, fenced for the async proxy). The
/// copies are not waited for: the channel (fill = async_copy) arrives as
/// each thread's complete, and its consumers fence the async proxy.
struct ThreadGatherOpLowering
    : public OpConversionPattern<tgpu::ThreadGatherOp> {
  using OpConversionPattern::OpConversionPattern;

  /// The copies of a gather that takes TMA boxes, `width` elements a
  /// register run: for each run of rows (the executing warp's; see
  /// tgpu::gatherBoxes) the warp finds whether its elements are one box,
  /// each index less its row (row dim) or column (contiguous dim) the same
  /// over the run (redux.sync.min, then a vote that every element has the
  /// minimum; dims AxisInfo proves uniform over a run are not checked) and
  /// the mask true throughout, and the descriptor encoded. A box run is one
  /// TMA copy a box of columns, each issued by its own lane after it adds
  /// the box's bytes to the slot's barrier; any other run is `copy`'s
  /// cp.async copies, register run by register run.
  static void emitRuns(Emitter &e, tgpu::ThreadGatherOp op,
                       OneToNOpAdaptor adaptor, const tgpu::GatherBoxes &boxes,
                       Value slot, int64_t width,
                       llvm::function_ref<void(int64_t, int64_t)> copy) {
    OpBuilder &b = e.b;
    auto tile = cast<RankedTensorType>(op.getTile());
    LinearLayout layout = getLayout(tile);
    ThreadCoords at(e, layout);
    int64_t rows = boxes.rows, cols = tile.getShape()[1];
    // The registers of each run of rows (lanes hold rows inside a run,
    // warps whole runs: the register's own row bits pick its run).
    std::map<int64_t, SmallVector<int64_t>> runs;
    for (int64_t r = 0; r < layout.getNumRegisters(); r += width)
      runs[at.constant(r)[0] / rows].push_back(r);
    SmallVector<AxisInfo> infos;
    for (Value i : op.getIndices())
      infos.push_back(AxisInfo::get(i));
    auto uniform = [&](int d) {
      const AxisInfo &a = infos[d];
      if (d == boxes.rowDim)
        return false;
      if (d == boxes.colDim)
        return a.contiguity[1] >= cols && a.constancy[0] >= rows;
      return a.constancy[0] >= rows && a.constancy[1] >= cols;
    };
    Value desc = adaptor.getTensor().front();
    Value ready = tmaDescriptorEncoded(e, desc);
    Value bar = barrierPointer(e, adaptor.getBarriers().front(),
                               adaptor.getSlot().front());
    Value lane = e.laneId();
    Type i1 = b.getI1Type(), i32 = b.getI32Type();
    Value yes = arith::ConstantIntOp::create(b, e.loc, i1, 1);
    int64_t perRun = cols / boxes.cols;
    int64_t boxBytes =
        rows * boxes.cols * storageBytes(tile.getElementType());
    int64_t issued = 0;
    for (auto &[key, regs] : runs) {
      auto value = [&](int d, int64_t r) {
        Value v = adaptor.getIndices()[d][r];
        if (d == boxes.rowDim)
          v = arith::SubIOp::create(b, e.loc, v, at.get(r, 0));
        if (d == boxes.colDim)
          v = arith::SubIOp::create(b, e.loc, v, at.get(r, 1));
        return v;
      };
      Value same = yes;
      SmallVector<Value> coords;
      for (int d = 0, n = infos.size(); d < n; ++d) {
        if (uniform(d)) {
          coords.push_back(value(d, regs.front()));
          continue;
        }
        SmallVector<Value> values;
        for (int64_t r : regs)
          values.push_back(value(d, r));
        Value lo = values.front();
        for (Value v : ArrayRef<Value>(values).drop_front())
          lo = arith::MinSIOp::create(b, e.loc, lo, v);
        lo = NVVM::ReduxOp::create(b, e.loc, i32, lo, NVVM::ReduxKind::MIN,
                                   e.i32(-1));
        for (Value v : values)
          same = arith::AndIOp::create(b, e.loc, same, e.eq(v, lo));
        coords.push_back(lo);
      }
      if (op.getMask())
        for (int64_t r : regs)
          same = arith::AndIOp::create(b, e.loc, same, adaptor.getMask()[r]);
      Value box = arith::AndIOp::create(
          b, e.loc, ready,
          NVVM::VoteSyncOp::create(b, e.loc, i1, e.i32(-1), same,
                                   NVVM::VoteSyncKind::all));
      // The run's first row, its place in the slot.
      Value row0 = e.andI(at.get(regs.front(), 0), e.i32(~(rows - 1)));
      coords[boxes.rowDim] = e.add(coords[boxes.rowDim], row0);
      Value runOff = e.mul(arith::DivUIOp::create(b, e.loc, row0, e.i32(rows)),
                           e.i32(boxes.runBytes));
      for (int64_t j = 0; j < perRun; ++j, ++issued) {
        Value mine = arith::AndIOp::create(b, e.loc, box,
                                           e.eq(lane, e.i32(issued % 32)));
        // (Predicated, not branched: PTX ISA, mbarrier.expect_tx.)
        e.ptx("{\n.reg .pred p;\nsetp.ne.b32 p, $0, 0;\n@p "
              "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [$1], $2;\n}",
              "r,r,r", {},
              {arith::ExtUIOp::create(b, e.loc, i32, mine),
               sharedAddress(e, bar), e.i32(boxBytes)},
              /*sideEffects=*/true);
        // (The columns run along the view's innermost dim.)
        tmaLoadBox(e,
                   offsetPtr(e, slot, e.add(runOff, e.i32(boxes.offset[j]))),
                   desc, tensorCoords(e, coords, j * boxes.cols), bar, mine);
      }
      // The threads copy a run that is no box.
      auto gather = scf::IfOp::create(
          b, e.loc, TypeRange{}, arith::XOrIOp::create(b, e.loc, box, yes),
          /*withElseRegion=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(gather.thenBlock());
      for (int64_t r : regs)
        copy(r, width);
    }
  }

  LogicalResult
  matchAndRewrite(tgpu::ThreadGatherOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Emitter e{rewriter, loc};
    auto tile = cast<RankedTensorType>(op.getTile());
    tgpu::SharedBufferType buf = op.getBuffer().getType();
    LinearLayout layout = getLayout(tile);
    Type elt = tile.getElementType();
    auto store = analyzeSharedAccess(layout, buf.getSlotLayout(),
                                     elt.getIntOrFloatBitWidth());
    if (!store)
      return op.emitOpError() << "the slot cannot hold the tile";
    Value slot = slotPointer(e, buf, adaptor.getBuffer().front(),
                             adaptor.getSlot().front());
    ViewValues view(op.getTensor().getType(), adaptor.getTensor());
    int64_t numRegs = layout.getNumRegisters();
    ValueRange mask = op.getMask() ? adaptor.getMask() : ValueRange{};
    auto [widest, vd] = indexedVector(op.getTensor().getType(), tile,
                                      op.getIndices(), op.getMask());
    int64_t eltBytes = storageBytes(elt);
    int64_t sv = store->vectorElements;
    // A cp.async moves 4, 8 or 16 bytes, into consecutive slot elements.
    int64_t vec = std::min(widest, sv);
    if (vec * eltBytes < 4)
      vec = 1;
    ThreadCoords storeAt(e, store->toOffset);
    FailureOr<tgpu::GatherBoxes> boxes = failure();
    if (op.getBarriers()) {
      std::string why;
      boxes = tgpu::gatherBoxesOf(op, why);
      if (failed(boxes))
        return op.emitOpError() << "cannot take TMA boxes: " << why;
    }
    auto copy = [&](int64_t r, int64_t width) {
      auto [addr, pred] =
          indexedElement(e, view, adaptor.getIndices(), mask, elt, r);
      Value off = storeAt.get(r, 0);
      if (width > 1) {
        asyncCopyToShared(e, addr, pred, width * eltBytes, elt, slot, off);
        return;
      }
      storeSharedVector(e, predicatedLoad(e, addr, pred, elt, 1, Attribute()),
                        elt, slot, off);
    };
    auto path = [&](int64_t width) {
      if (width > 1 && succeeded(boxes)) {
        emitRuns(e, op, adaptor, *boxes, slot, width, copy);
        return SmallVector<Value>();
      }
      for (int64_t r = 0; r < numRegs; r += width)
        copy(r, width);
      // (The element path's stores, for the MMA's async proxy, released:
      // the channel's fill is each thread's cp.async arrival.)
      if (width == 1) {
        fenceProxyAsyncShared(e);
        releaseSharedStores(e);
      }
      return SmallVector<Value>();
    };
    // (Not waited for: the channel's fill arrives as they complete.)
    emitVectorOrScalar(rewriter, loc, vec,
                       vec > 1 ? vectorViewOk(e, view, vd, vec, elt) : Value(),
                       TypeRange{}, path);
    rewriter.eraseOp(op);
    return success();
  }
};

struct ScatterOpLowering : public OpConversionPattern<ScatterOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ScatterOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    ViewValues view(op.getTensor().getType(), adaptor.getTensor());
    auto vt = cast<RankedTensorType>(op.getValue().getType());
    Owners owners(e, getLayout(vt));
    ValueRange mask = op.getMask() ? adaptor.getMask() : ValueRange{};
    ValueRange values = adaptor.getValue();
    auto [vec, vd] = indexedVector(op.getTensor().getType(), vt,
                                   op.getIndices(), op.getMask());
    // A run's registers hold distinct elements (its register bases are
    // unit steps), so a run is owned or repeated as a whole.
    auto path = [&](int64_t width) {
      for (int64_t r = 0; r < int64_t(values.size()); r += width) {
        if (owners.first[r] != r)
          continue;
        auto [addr, pred] = indexedElement(e, view, adaptor.getIndices(),
                                           mask, vt.getElementType(), r);
        predicatedStore(e, addr, owners.restrict(e, pred),
                        values.slice(r, width));
      }
      return SmallVector<Value>();
    };
    emitVectorOrScalar(
        rewriter, e.loc, vec,
        vec > 1 ? vectorViewOk(e, view, vd, vec, vt.getElementType()) : Value(),
        TypeRange{}, path);
    rewriter.eraseOp(op);
    return success();
  }
};

StringRef semName(MemSemantics s) {
  switch (s) {
  case MemSemantics::Relaxed:
    return ".relaxed";
  case MemSemantics::Acquire:
    return ".acquire";
  case MemSemantics::Release:
    return ".release";
  case MemSemantics::AcqRel:
    return ".acq_rel";
  }
  llvm_unreachable("memory semantics");
}

/// The PTX operation and type of an atomic on `elt` (for f32 max/min, the
/// integer operation on non-negative values; see floatMinMax).
std::string atomicOp(AtomicKind kind, Type elt) {
  switch (kind) {
  case AtomicKind::Add:
    return elt.isF32()    ? "add.f32"
           : elt.isF16()  ? "add.noftz.f16"
           : elt.isBF16() ? "add.noftz.bf16"
                          : "add.u32";
  case AtomicKind::Max:
    return "max.s32";
  case AtomicKind::Min:
    return "min.s32";
  case AtomicKind::UMax:
    return "max.u32";
  case AtomicKind::UMin:
    return "min.u32";
  case AtomicKind::And:
    return "and.b32";
  case AtomicKind::Or:
    return "or.b32";
  case AtomicKind::Xor:
    return "xor.b32";
  case AtomicKind::Xchg:
    return "exch.b32";
  }
  llvm_unreachable("atomic kind");
}

/// The old values of one element-wise atomic, given per register the PTX
/// to run (operands: $0 the old value, $1 the predicate, $2 the address,
/// then `extra`'s), or no value when `asResult` is false (then the PTX has
/// no $0 and the rest shift down by one).
struct AtomicEmitter {
  Emitter &e;
  Type elt;
  bool wide; // 32-bit (else 16-bit) operands

  std::string reg() const { return wide ? "r" : "h"; }

  /// Runs `body` ("@p ..." lines, `p` the access predicate) per register.
  Value run(StringRef body, Value pred, Value addr, ValueRange extra,
            bool withResult) {
    std::string bits = wide ? "b32" : "b16";
    std::string asmStr = "{\n.reg .pred p;\nsetp.ne.b32 p, $" +
                         std::string(withResult ? "1" : "0") + ", 0;\n";
    if (withResult)
      asmStr += "mov." + bits + " $0, 0;\n";
    asmStr += body.str() + "\n}";
    std::string constraints = withResult ? "=" + reg() + ",r,l" : "r,l";
    for (size_t i = 0; i < extra.size(); ++i)
      constraints += "," + reg();
    SmallVector<Value> operands{pred, addr};
    for (Value v : extra)
      operands.push_back(e.toBits(v));
    Type bitsTy = storageType(elt);
    SmallVector<Value> out =
        e.ptx(asmStr, constraints, withResult ? TypeRange{bitsTy} : TypeRange{},
              operands, /*sideEffects=*/true);
    return withResult ? e.fromBits(out.front(), elt) : Value();
  }
};

/// f32 max/min on the bits: for a non-negative value the signed integer
/// order is the float order; for a negative one the unsigned order is its
/// reverse. `ops` is the pair of PTX operations (value >= +0, value < 0).
std::pair<std::string, std::string> floatMinMax(AtomicKind kind) {
  if (kind == AtomicKind::Max)
    return {"max.s32", "min.u32"};
  return {"min.s32", "max.u32"};
}

/// Old values of every register from the owning copies' `old` (see the
/// file comment), through shared memory (`op`'s scratch) when threads
/// share elements.
SmallVector<Value> shareOldValues(Operation *op, Emitter &e,
                                  const Owners &owners,
                                  const LinearLayout &l, Type elt,
                                  SmallVector<Value> old) {
  for (size_t r = 0; r < old.size(); ++r)
    old[r] = old[owners.first[r]];
  if (!owners.thread)
    return old;
  ThreadCoords coords(e, l);
  Value base = e.sharedBase(op);
  Type bits = storageType(elt);
  auto at = [&](int64_t r) {
    auto ptrTy = LLVM::LLVMPointerType::get(e.b.getContext(), 3);
    return LLVM::GEPOp::create(e.b, e.loc, ptrTy, bits, base,
                               ValueRange{coords.flatIndex(r)});
  };
  e.barrier();
  {
    // The owning threads write their elements' old values.
    auto ifOp = scf::IfOp::create(e.b, e.loc, TypeRange{}, owners.thread,
                                  /*withElseRegion=*/false);
    OpBuilder::InsertionGuard g(e.b);
    e.b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    for (size_t r = 0; r < old.size(); ++r)
      if (owners.first[r] == int64_t(r))
        LLVM::StoreOp::create(e.b, e.loc, e.toBits(old[r]), at(r));
  }
  e.barrier();
  SmallVector<Value> out;
  for (size_t r = 0; r < old.size(); ++r) {
    Value v = LLVM::LoadOp::create(e.b, e.loc, bits, at(r));
    out.push_back(e.fromBits(v, elt));
  }
  return out;
}

/// Runs `issue` (the owners' atomics) with the ordering `sem` promises
/// for every copy of the elements, then gives the op its results (the old
/// values shared with the copies) or, unused, erases it. When threads
/// share elements, the owner acts for the others: a barrier before
/// release makes their earlier accesses precede it (release is
/// cumulative), and one after acquire (and the sharing's barriers) makes
/// it precede their later ones. With kAsyncProxyFenceAttr (a TMA store may
/// follow), every thread then fences the async proxy's global accesses, so
/// the bulk copies it issues are ordered after the acquire too.
template <typename OpTy>
void finishAtomic(ConversionPatternRewriter &rewriter, Emitter &e, OpTy op,
                  const Owners &owners, const LinearLayout &l, Type elt,
                  MemSemantics sem,
                  function_ref<SmallVector<Value>()> issue) {
  bool shared = bool(owners.thread);
  if (shared && (sem == MemSemantics::Release || sem == MemSemantics::AcqRel))
    e.barrier();
  SmallVector<Value> old = issue();
  bool acquire = sem == MemSemantics::Acquire || sem == MemSemantics::AcqRel;
  auto fenceAsync = [&] {
    if (acquire && op->hasAttr(tgpu::kAsyncProxyFenceAttr))
      e.ptx("fence.proxy.async.global;", "", {}, {}, /*sideEffects=*/true);
  };
  if (op.getResult().use_empty()) {
    if (shared && acquire)
      e.barrier();
    fenceAsync();
    rewriter.eraseOp(op);
    return;
  }
  SmallVector<Value> values =
      shareOldValues(op, e, owners, l, elt, std::move(old));
  fenceAsync();
  rewriter.replaceOpWithMultiple(op, {values});
}

struct AtomicRMWOpLowering : public OpConversionPattern<AtomicRMWOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AtomicRMWOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    ViewValues view(op.getTensor().getType(), adaptor.getTensor());
    auto vt = cast<RankedTensorType>(op.getValue().getType());
    Type elt = vt.getElementType();
    LinearLayout l = getLayout(vt);
    Owners owners(e, l);
    ValueRange mask = op.getMask() ? adaptor.getMask() : ValueRange{};
    ValueRange values = adaptor.getValue();
    AtomicKind kind = op.getKind();
    bool used = !op.getResult().use_empty();
    // A result nobody reads: `red`, which has no acquire ordering.
    MemSemantics sem = op.getSem();
    bool red = !used && kind != AtomicKind::Xchg &&
               (sem == MemSemantics::Relaxed || sem == MemSemantics::Release);
    std::string prefix = (red ? "red" : "atom") + semName(sem).str() + "." +
                         stringifyMemScope(op.getScope()).str() + ".global.";
    // Operand numbers: old value (atom only), predicate, address, value.
    std::string args = red ? " [$1], $2;" : " $0, [$2], $3;";
    bool fminmax = elt.isF32() && (kind == AtomicKind::Max ||
                                   kind == AtomicKind::Min);
    std::string body;
    if (fminmax) {
      auto [pos, neg] = floatMinMax(kind);
      std::string v = red ? "$2" : "$3";
      body = ".reg .pred q, n;\nsetp.ge.and.s32 q, " + v +
             ", 0, p;\nsetp.lt.and.s32 n, " + v + ", 0, p;\n@q " + prefix +
             pos + args + "\n@n " + prefix + neg + args;
    } else {
      body = "@p " + prefix + atomicOp(kind, elt) + args;
    }
    AtomicEmitter ae{e, elt, storageBytes(elt) == 4};
    finishAtomic<AtomicRMWOp>(rewriter, e, op, owners, l, elt, sem, [&] {
      SmallVector<Value> old(values.size());
      for (int64_t r = 0; r < int64_t(values.size()); ++r) {
        if (owners.first[r] != r)
          continue;
        auto [addr, pred] =
            indexedElement(e, view, adaptor.getIndices(), mask, elt, r);
        old[r] =
            ae.run(body, owners.restrict(e, pred), addr, values[r], !red);
      }
      return old;
    });
    return success();
  }
};

struct AtomicCASOpLowering : public OpConversionPattern<AtomicCASOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AtomicCASOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    ViewValues view(op.getTensor().getType(), adaptor.getTensor());
    auto vt = cast<RankedTensorType>(op.getType());
    Type elt = vt.getElementType();
    LinearLayout l = getLayout(vt);
    Owners owners(e, l);
    ValueRange mask = op.getMask() ? adaptor.getMask() : ValueRange{};
    std::string body = "@p atom" + semName(op.getSem()).str() + "." +
                       stringifyMemScope(op.getScope()).str() +
                       ".global.cas.b32 $0, [$2], $3, $4;";
    AtomicEmitter ae{e, elt, true};
    finishAtomic<AtomicCASOp>(rewriter, e, op, owners, l, elt, op.getSem(), [&] {
      SmallVector<Value> old(l.getNumRegisters());
      for (int64_t r = 0; r < int64_t(old.size()); ++r) {
        if (owners.first[r] != r)
          continue;
        auto [addr, pred] =
            indexedElement(e, view, adaptor.getIndices(), mask, elt, r);
        old[r] = ae.run(
            body, owners.restrict(e, pred), addr,
            ValueRange{adaptor.getCmp()[r], adaptor.getValue()[r]}, true);
      }
      return old;
    });
    return success();
  }
};

} // namespace

void tilec::populateTileIndexedPatterns(TypeConverter &converter,
                                        RewritePatternSet &patterns) {
  patterns.add<GatherOpLowering,    // tile.gather
               ThreadGatherOpLowering, // tgpu.thread_gather
               ScatterOpLowering,   // tile.scatter
               AtomicRMWOpLowering, // tile.atomic_rmw
               AtomicCASOpLowering  // tile.atomic_cas
               >(converter, patterns.getContext());
}
