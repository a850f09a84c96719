//===- TGPUOpsToLLVM.cpp - tgpu ops to NVVM -------------------------------===//
//
// Shared-memory buffers and mbarriers become addresses in the kernel's
// dynamic shared memory (their `offset`, from tile-allocate-shared-memory;
// lowerWarpSpecialize keeps each region copy's). mbarriers, bulk tensor copies, fences, named and
// cluster barriers, setmaxnreg and wgmma's fence and commit become upstream
// NVVM ops; an op one thread issues is predicated on that thread.
// wgmma and its wait are WGMMAOpsToLLVM.cpp's, tgpu.warp_specialize
// WarpSpecializeToLLVM.cpp's.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"
#include "tilec/Dialect/Tile/TargetInfo.h"

#include "tilec/Dialect/TGPU/TGPUDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;
using namespace tilec::tgpu;

namespace {

/// Until at most `pendings` of this thread's bulk copies still read shared
/// memory (threads that issued none have none to wait for).
void waitBulkReads(Emitter &e, int64_t pendings) {
  NVVM::CpAsyncBulkWaitGroupOp::create(e.b, e.loc,
                                       e.b.getI32IntegerAttr(pendings),
                                       e.b.getUnitAttr());
}

template <typename OpTy>
struct PlacedBufferLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // One offset by now (lowerWarpSpecialize picked each copy's).
    std::optional<ArrayRef<int64_t>> offset = op.getOffset();
    if (!offset || offset->size() != 1)
      return op.emitOpError() << "has no shared-memory offset";
    Emitter e{rewriter, op.getLoc()};
    Value ptr = offsetPtr(e, e.smemStart(), e.i32(offset->front()));
    if constexpr (std::is_same_v<OpTy, BarriersOp>) {
      // One thread initializes every barrier; the block waits for it.
      Value first = firstThread(e, e.threadId());
      Value count = e.i32(op.getArriveCount());
      for (int64_t i = 0; i < op.getType().getCount(); ++i)
        NVVM::MBarrierInitOp::create(rewriter, e.loc,
                                     barrierPointer(e, ptr, e.i32(i)), count,
                                     first);
      NVVM::FenceMbarrierInitOp::create(rewriter, e.loc);
      e.barrier();
    }
    rewriter.replaceOp(op, ptr);
    return success();
  }
};

/// A transposed view is the same memory.
struct TransposeLowering : public OpConversionPattern<tgpu::TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tgpu::TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getSrc());
    return success();
  }
};

template <typename OpTy>
struct NamedBarrierLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    Value threads = e.i32(op.getThreads());
    if constexpr (std::is_same_v<OpTy, NamedBarrierWaitOp>)
      NVVM::BarrierOp::create(rewriter, e.loc, TypeRange{}, adaptor.getId(),
                              threads, /*reductionOp=*/{}, Value());
    else
      NVVM::BarrierArriveOp::create(rewriter, e.loc, adaptor.getId(), threads);
    rewriter.eraseOp(op);
    return success();
  }
};

struct ClusterSyncLowering : public OpConversionPattern<ClusterSyncOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ClusterSyncOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::ClusterArriveOp::create(rewriter, op.getLoc(), UnitAttr());
    NVVM::ClusterWaitOp::create(rewriter, op.getLoc(), UnitAttr());
    rewriter.eraseOp(op);
    return success();
  }
};

/// How the tile `tileTy` sits in a slot of `op`'s buffer (ldmatrix /
/// stmatrix or vector accesses) and the slot's address; fails (saying so
/// at `op`) if the slot's layout cannot hold the tile's.
template <typename OpT>
FailureOr<std::pair<SharedAccess, Value>>
slotAccess(OpT op, Emitter &e, RankedTensorType tileTy,
           typename OpT::template GenericAdaptor<ArrayRef<ValueRange>> adaptor) {
  SharedBufferType buf = op.getBuffer().getType();
  auto access =
      analyzeSharedAccess(getLayout(tileTy), buf.getSlotLayout(),
                          tileTy.getElementType().getIntOrFloatBitWidth());
  if (!access)
    return op.emitOpError() << "the slot cannot hold the tile";
  return std::make_pair(*access,
                        slotPointer(e, buf, adaptor.getBuffer().front(),
                                    adaptor.getSlot().front()));
}

struct LocalLoadLowering : public OpConversionPattern<LocalLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LocalLoadOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    auto rt = cast<RankedTensorType>(op.getType());
    auto at = slotAccess(op, e, rt, adaptor);
    if (failed(at))
      return failure();
    rewriter.replaceOpWithMultiple(
        op, {loadFromShared(e, getLayout(rt).getNumRegisters(),
                            rt.getElementType(), at->first, at->second)});
    return success();
  }
};

/// A tile into a slot: tgpu.local_store between barriers of the executing
/// warps, tgpu.slot_store alone (the channel that owns the slot orders
/// it).
template <typename OpT, bool synchronized>
struct SlotWriteLowering : public OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpT op, typename OpT::template GenericAdaptor<
                              ArrayRef<ValueRange>> adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    auto vt = cast<RankedTensorType>(op.getValue().getType());
    auto at = slotAccess(op, e, vt, adaptor);
    if (failed(at))
      return failure();
    if (synchronized)
      e.barrier();
    storeToShared(e, adaptor.getValue(), vt.getElementType(), at->first,
                  at->second);
    if (synchronized)
      e.barrier();
    rewriter.eraseOp(op);
    return success();
  }
};
using LocalStoreLowering = SlotWriteLowering<LocalStoreOp, true>;
using SlotStoreLowering = SlotWriteLowering<SlotStoreOp, false>;

/// Scratch in the result's layout: barrier (earlier readers of scratch are
/// done), stores, a proxy fence (wgmma reads it through the async proxy),
/// barrier.
struct LocalStageLowering : public OpConversionPattern<LocalStageOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LocalStageOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    auto vt = cast<RankedTensorType>(op.getValue().getType());
    auto access =
        analyzeSharedAccess(getLayout(vt), op.getType().getSlotLayout(),
                            vt.getElementType().getIntOrFloatBitWidth());
    if (!access)
      return op.emitOpError() << "the buffer's layout cannot hold the tile";
    Value base = e.sharedBase(op);
    e.barrier();
    storeToShared(e, adaptor.getValue(), vt.getElementType(), *access, base);
    fenceProxyAsyncShared(e);
    e.barrier();
    rewriter.replaceOp(op, base);
    return success();
  }
};

/// An encoded CUtensorMap is not all zero in its first 16 bytes (they hold
/// the global address).
} // namespace

Value tilec::tmaDescriptorEncoded(Emitter &e, Value desc) {
  Type i64 = e.b.getI64Type();
  Value w0 = LLVM::LoadOp::create(e.b, e.loc, i64, desc, 8);
  Value p1 = LLVM::GEPOp::create(e.b, e.loc, desc.getType(), i64, desc,
                                 ArrayRef<LLVM::GEPArg>{1});
  Value w1 = LLVM::LoadOp::create(e.b, e.loc, i64, p1, 8);
  Value any = arith::OrIOp::create(e.b, e.loc, w0, w1);
  return arith::CmpIOp::create(e.b, e.loc, arith::CmpIPredicate::ne, any,
                               e.i64(0));
}

SmallVector<Value> tilec::tensorCoords(Emitter &e, ArrayRef<Value> coords,
                                       int64_t innerOffset, int64_t rowOffset) {
  SmallVector<Value> out;
  for (int d = coords.size() - 1; d >= 0; --d) {
    Value c = coords[d];
    if (d == int(coords.size()) - 1 && innerOffset)
      c = e.add(c, e.i32(innerOffset));
    if (d == int(coords.size()) - 2 && rowOffset)
      c = e.add(c, e.i32(rowOffset));
    out.push_back(c);
  }
  return out;
}

void tilec::tmaLoadBox(Emitter &e, Value dst, Value desc, ValueRange coords,
                       Value bar, Value pred, Value multicast) {
  // The copy writes a shared::cluster address: this CTA's (with multicast,
  // the same place in each CTA of the mask). A shared::cta address is that
  // address in the cluster window (an addrspacecast would go through a
  // 64-bit generic address: two cvta a copy).
  Value dstPtr = LLVM::IntToPtrOp::create(
      e.b, e.loc,
      LLVM::LLVMPointerType::get(e.b.getContext(),
                                 int(NVVM::NVVMMemorySpace::SharedCluster)),
      sharedAddress(e, dst));
  NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
      e.b, e.loc, dstPtr, desc, coords, bar,
      /*im2colOffsets=*/ValueRange(), multicast, /*l2CacheHint=*/Value(),
      NVVM::TMALoadModeAttr::get(e.b.getContext(), NVVM::TMALoadMode::TILE),
      /*isCTAOnly=*/e.b.getBoolAttr(false), NVVM::CTAGroupKindAttr(), pred);
}

namespace {

struct TMAReadyLowering : public OpConversionPattern<TMAReadyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TMAReadyOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    rewriter.replaceOp(op, tmaDescriptorEncoded(e, adaptor.getDesc().front()));
    return success();
  }
};

struct WaitLowering : public OpConversionPattern<WaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    Value addr = barrierPointer(e, adaptor.getBarriers(), adaptor.getIndex());
    // A loop of try_waits, each suspending up to 10 ms.
    NVVM::MBarrierTryWaitParityOp::create(rewriter, e.loc, addr,
                                          adaptor.getPhase(), e.i32(10000000));
    if (op.getProxyFence())
      fenceProxyAsyncShared(e);
    rewriter.eraseOp(op);
    return success();
  }
};

/// `addr` (a shared::cta address) in the shared memory of the cluster's
/// CTA of rank `rank`: its shared::cluster address (mapa).
Value inClusterCTA(Emitter &e, Value addr, Value rank) {
  return NVVM::MapaOp::create(
      e.b, e.loc,
      LLVM::LLVMPointerType::get(e.b.getContext(),
                                 int(NVVM::NVVMMemorySpace::SharedCluster)),
      addr, rank);
}

struct ArriveLowering : public OpConversionPattern<ArriveOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    Value addr = barrierPointer(e, adaptor.getBarriers(), adaptor.getIndex());
    if (op.getAsyncCopies()) {
      // Each thread, once its cp.async copies complete (PTX ISA,
      // cp.async.mbarrier.arrive: .noinc, the barrier counts the threads).
      e.ptx("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [$0];", "r", {},
            {sharedAddress(e, addr)}, /*sideEffects=*/true);
      rewriter.eraseOp(op);
      return success();
    }
    // An arrive that expects `tx` bytes (0: a plain arrive; NVVM's
    // mbarrier.arrive has no predicate operand).
    auto arrive = [&](Value barrier, int64_t tx, Value pred) {
      NVVM::MBarrierArriveExpectTxOp::create(
          rewriter, e.loc, Type(), barrier, e.i32(tx),
          NVVM::MemScopeKindAttr::get(rewriter.getContext(),
                                      NVVM::MemScopeKind::CTA),
          rewriter.getBoolAttr(false), pred);
    };
    if (op.getLeader()) {
      // The cluster's first CTA's barrier (mapa to rank 0; PTX ISA,
      // "mbarrier.arrive": a .shared::cluster address). One thread arrives
      // with the bytes, else lane 0 of each warp once the warp is here.
      // (.release.cta, as the cluster arrive below and CUTLASS's pair
      // pipelines: .release.cluster costs a GPU-wide MEMBAR each arrival,
      // and what the MMA thread must see after it, the copies' bytes and
      // the epilogue's finished tcgen05.ld, the barrier's transactions and
      // the tcgen05 fences order.)
      Value remote = inClusterCTA(e, addr, e.i32(0));
      auto scope = NVVM::MemScopeKindAttr::get(rewriter.getContext(),
                                               NVVM::MemScopeKind::CTA);
      Value who = e.threadId();
      if (!op.getExpectTx()) {
        NVVM::SyncWarpOp::create(rewriter, e.loc, e.i32(-1));
        who = e.laneId();
      }
      // (NVVM's arrive on a shared::cluster barrier takes no predicate.)
      auto ifOp = scf::IfOp::create(
          rewriter, e.loc, TypeRange{},
          op.getExpectTx() ? firstThread(e, who) : e.eq(who, e.i32(0)),
          /*withElseRegion=*/false);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(ifOp.thenBlock());
      if (auto tx = op.getExpectTx())
        NVVM::MBarrierArriveExpectTxOp::create(
            rewriter, e.loc, Type(), remote, e.i32(*tx), scope,
            rewriter.getBoolAttr(false), Value());
      else
        NVVM::MBarrierArriveOp::create(rewriter, e.loc, Type(), remote,
                                       Value(), scope);
      rewriter.eraseOp(op);
      return success();
    }
    if (auto tx = op.getExpectTx()) {
      arrive(addr, *tx, firstThread(e, e.threadId()));
      rewriter.eraseOp(op);
      return success();
    }
    // One thread of each warp arrives, after the whole warp is done.
    NVVM::SyncWarpOp::create(rewriter, e.loc, e.i32(-1));
    if (auto n = op.getCluster()) {
      // The same barrier in every CTA of the cluster: lane i of each warp
      // arrives on CTA i's.
      // (NVVM's arrive on a shared::cluster barrier takes no predicate.)
      Value lane = e.laneId();
      auto ifOp = scf::IfOp::create(rewriter, e.loc, TypeRange{},
                                    e.ult(lane, e.i32(*n)),
                                    /*withElseRegion=*/false);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(ifOp.thenBlock());
      Value remote = inClusterCTA(e, addr, lane);
      NVVM::MBarrierArriveOp::create(
          rewriter, e.loc, Type(), remote, Value(),
          NVVM::MemScopeKindAttr::get(rewriter.getContext(),
                                      NVVM::MemScopeKind::CTA));
    } else {
      arrive(addr, 0,
             NVVM::ElectSyncOp::create(rewriter, e.loc, rewriter.getI1Type(),
                                       Value()));
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// Row `index` of a buffer of try_cancel responses (16 bytes a row).
Value responsePointer(Emitter &e, Value buffer, Value index) {
  return offsetPtr(e, buffer, e.mul(index, e.i32(16)));
}

/// clusterlaunchcontrol.try_cancel by the first thread of the executing
/// warps (PTX ISA 8.6, clusterlaunchcontrol.try_cancel: the response is
/// written asynchronously and its 16 bytes complete the barrier's
/// transactions).
struct TryCancelLowering : public OpConversionPattern<TryCancelOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TryCancelOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    Value resp = responsePointer(e, adaptor.getResponse(), adaptor.getIndex());
    Value bar = barrierPointer(e, adaptor.getBarriers(), adaptor.getIndex());
    // (NVVM's try_cancel takes no predicate.) With multicast the
    // cluster's first CTA asks for all (clusters of two along x here).
    bool multicast = op.getMulticast();
    onFirstThread(e, /*leaderOnly=*/multicast, [&] {
      NVVM::ClusterLaunchControlTryCancelOp::create(rewriter, e.loc, multicast,
                                                    resp, bar);
    });
    rewriter.eraseOp(op);
    return success();
  }
};

/// The response's 16 bytes as one i128, queried (clusterlaunchcontrol.
/// query_cancel): the first block's x where the launch was cancelled, -1
/// where not.
struct QueryCancelLowering : public OpConversionPattern<QueryCancelOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(QueryCancelOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    Value resp = responsePointer(e, adaptor.getResponse(), adaptor.getIndex());
    Value bits = LLVM::LoadOp::create(rewriter, e.loc,
                                      rewriter.getIntegerType(128), resp, 16);
    auto query = [&](NVVM::ClusterLaunchControlQueryType q, Type t) {
      return NVVM::ClusterLaunchControlQueryCancelOp::create(
          rewriter, e.loc, t,
          NVVM::ClusterLaunchControlQueryTypeAttr::get(rewriter.getContext(),
                                                       q),
          bits);
    };
    Value cancelled =
        query(NVVM::ClusterLaunchControlQueryType::IS_CANCELED,
              rewriter.getI1Type());
    Value x = query(NVVM::ClusterLaunchControlQueryType::GET_FIRST_CTA_ID_X,
                    rewriter.getI32Type());
    rewriter.replaceOp(op, arith::SelectOp::create(rewriter, e.loc, cancelled,
                                                   x, e.i32(-1)));
    return success();
  }
};

/// The global address (i64) of a dynamic schedule's counter view.
Value counterAddress(Emitter &e, tile::TensorViewType type, ValueRange view) {
  return LLVM::PtrToIntOp::create(e.b, e.loc, e.b.getI64Type(),
                                  ViewValues(type, view).base);
}

/// tgpu.claim_tile: on the first thread of the executing warps, the
/// counter's old value (atom.add) to the response's first word, then the
/// barrier's arrival (mbarrier.arrive releases the shared store to the
/// warps that wait for the phase). One asm block: the arrive must follow
/// the store, which waits for the atomic's value.
struct ClaimTileLowering : public OpConversionPattern<ClaimTileOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ClaimTileOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    Value counter =
        counterAddress(e, op.getCounter().getType(), adaptor.getCounter());
    Value index = adaptor.getIndex().front();
    Value resp =
        responsePointer(e, adaptor.getResponse().front(), index);
    Value bar = barrierPointer(e, adaptor.getBarriers().front(), index);
    e.ptx("{\n.reg .pred p;\n.reg .b32 old;\nsetp.ne.b32 p, $0, 0;\n"
          "@p atom.relaxed.gpu.global.add.u32 old, [$1], 1;\n"
          "@p st.shared.u32 [$2], old;\n"
          "@p mbarrier.arrive.shared::cta.b64 _, [$3];\n}",
          "r,l,r,r", {},
          {firstThread(e, e.threadId()), counter, sharedAddress(e, resp),
           sharedAddress(e, bar)},
          /*sideEffects=*/true);
    rewriter.eraseOp(op);
    return success();
  }
};

/// tgpu.claimed_tile: the response's first word.
struct ClaimedTileLowering : public OpConversionPattern<ClaimedTileOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ClaimedTileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    Value resp = responsePointer(e, adaptor.getResponse(), adaptor.getIndex());
    rewriter.replaceOp(op, LLVM::LoadOp::create(rewriter, e.loc,
                                                rewriter.getI32Type(), resp, 4));
    return success();
  }
};

/// tgpu.release_tile_counter: on the first thread of the executing warps
/// (the one that claimed), element 1 counts the programs done (acq_rel:
/// the program's claims before it, every other program's seen by the last
/// one); the last of the launch's programs zeroes both elements.
struct ReleaseTileCounterLowering
    : public OpConversionPattern<ReleaseTileCounterOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReleaseTileCounterOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    Value counter =
        counterAddress(e, op.getCounter().getType(), adaptor.getCounter());
    e.ptx("{\n.reg .pred p, last;\n.reg .b32 old, n, m;\n"
          "setp.ne.b32 p, $0, 0;\nmov.u32 old, 0;\n"
          "mov.u32 n, %nctaid.x;\nmov.u32 m, %nctaid.y;\nmul.lo.u32 n, n, m;\n"
          "mov.u32 m, %nctaid.z;\nmul.lo.u32 n, n, m;\nsub.u32 n, n, 1;\n"
          "@p atom.acq_rel.gpu.global.add.u32 old, [$1+4], 1;\n"
          "setp.eq.and.u32 last, old, n, p;\n"
          "@last st.relaxed.gpu.global.u32 [$1], 0;\n"
          "@last st.relaxed.gpu.global.u32 [$1+4], 0;\n}",
          "r,l", {}, {firstThread(e, e.threadId()), counter},
          /*sideEffects=*/true);
    rewriter.eraseOp(op);
    return success();
  }
};

/// The converted coordinates of a TMA op (one value each), outermost
/// first.
SmallVector<Value> coordValues(ArrayRef<ValueRange> coords) {
  return llvm::to_vector(
      llvm::map_range(coords, [](ValueRange c) { return c.front(); }));
}

struct TMALoadLowering : public OpConversionPattern<TMALoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TMALoadOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    TensorViewType view = op.getDesc().getType();
    SharedBufferType dst = op.getDst().getType();
    ArrayRef<int64_t> box = view.getTmaBox();
    ArrayRef<int64_t> slot = dst.getSlotShape();
    Value desc = adaptor.getDesc().front();
    Value bar = barrierPointer(e, adaptor.getBarriers().front(),
                               adaptor.getSlot().front());
    Value base = slotPointer(e, dst, adaptor.getDst().front(),
                             adaptor.getSlot().front());
    // With `leader`: the leader's barrier, at its shared::cluster address
    // (mapa to rank 0), which only a .cta_group::2 copy may signal from
    // the peer CTA (PTX ISA, "cp.async.bulk.tensor"). NVVM's op drops the
    // CTA group where it takes a predicate, so these copies are inline PTX.
    Value leaderBar;
    if (op.getLeader())
      leaderBar = LLVM::PtrToIntOp::create(
          rewriter, e.loc, rewriter.getI32Type(),
          inClusterCTA(e, bar, e.i32(0)));
    Value tid = e.threadId();
    // Boxes side by side along the innermost dim, and where a box has
    // fewer rows than the slot (a view shared by tiles of several row
    // counts), rows of them.
    int64_t cols = slot.back() / box.back();
    int64_t boxRows = slot.size() >= 2 && box.size() >= 2
                          ? box[box.size() - 2]
                          : 1;
    int64_t rows = slot.size() >= 2 ? slot[slot.size() - 2] / boxRows : 1;
    int64_t boxes = rows * cols;
    std::optional<int32_t> multicast = op.getMulticast();
    int64_t perCta = multicast ? boxes / *multicast : boxes;
    Value ctaRank, mask;
    if (multicast) {
      ctaRank = NVVM::ClusterId::create(rewriter, e.loc, rewriter.getI32Type());
      mask = arith::ConstantIntOp::create(rewriter, e.loc,
                                          rewriter.getI16Type(),
                                          (1 << *multicast) - 1);
    }
    for (int64_t j = 0; j < boxes; ++j) {
      // (A box of more dims than the slot has leading 1s.)
      SmallVector<int64_t> first(slot.size(), 0);
      first.back() = (j % cols) * box.back();
      int64_t rowOffset = (j / cols) * boxRows;
      if (rows > 1)
        first[slot.size() - 2] = rowOffset;
      Value dstCta = offsetPtr(e, base, e.i32(slotByteOffset(dst, first)));
      // The issuing thread: thread 0 (of the CTA that owns box j).
      Value issuer = tid;
      if (multicast) {
        Value owner = e.i32(j / perCta);
        issuer = arith::SelectOp::create(
            rewriter, e.loc, e.eq(ctaRank, owner), tid, e.i32(1));
      }
      SmallVector<Value> coords =
          tensorCoords(e, coordValues(adaptor.getCoords()),
                       (j % cols) * box.back(), rowOffset);
      if (leaderBar) {
        std::string asmStr = "{\n.reg .pred p;\nsetp.ne.b32 p, $0, 0;\n@p "
                             "cp.async.bulk.tensor." +
                             std::to_string(coords.size()) +
                             "d.cta_group::2.shared::cluster.global.tile."
                             "mbarrier::complete_tx::bytes [$1], [$2, {";
        std::string constraints = "r,r,l,r"; // pred, dst, desc, barrier
        for (size_t c = 0; c < coords.size(); ++c) {
          asmStr += (c ? ", $" : "$") + std::to_string(4 + c);
          constraints += ",r";
        }
        asmStr += "}], [$3];\n}";
        SmallVector<Value> operands = {
            arith::ExtUIOp::create(rewriter, e.loc, rewriter.getI32Type(),
                                   firstThread(e, issuer)),
            sharedAddress(e, dstCta),
            desc, leaderBar};
        operands.append(coords.begin(), coords.end());
        e.ptx(asmStr, constraints, {}, operands, /*sideEffects=*/true);
        continue;
      }
      tmaLoadBox(e, dstCta, desc, coords, bar, firstThread(e, issuer), mask);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct TMAStoreLowering : public OpConversionPattern<TMAStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TMAStoreOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    auto vt = cast<RankedTensorType>(op.getValue().getType());
    LinearLayout from = getLayout(vt);
    SharedBufferType buf = op.getBuffer().getType();
    ArrayRef<int64_t> box = op.getDesc().getType().getTmaBox().take_back(2);
    ChunkSelect sel = *chunkSelectBits(from, box[1]);
    SmallVector<unsigned> regChunkBits = sel.chunkBits(InDim::Register);
    SmallVector<unsigned> warpChunkBits = sel.chunkBits(InDim::Warp);
    int64_t perRound = sel.perRound();
    int64_t rounds = (vt.getShape()[1] / box[1]) / perRound;
    int64_t inFlight = buf.getNumSlots() / perRound;
    // One chunk's registers: the layout without the selecting register
    // bits; the selecting warp bits move nothing in a slot (each warp's
    // chunk has a slot of its own).
    LinearLayout::Bases low;
    SmallVector<unsigned> lowBits;
    for (auto [i, c] : llvm::enumerate(from.getBases(InDim::Register)))
      if (!llvm::any_of(sel.bits, [&, i = i](auto &b) {
            return b == std::make_pair(InDim::Register, unsigned(i));
          })) {
        low.push_back(c);
        lowBits.push_back(i);
      }
    LinearLayout::Bases warps = from.getBases(InDim::Warp);
    for (unsigned k : warpChunkBits)
      warps[sel.bits[k].second] = {0, 0};
    LinearLayout chunk({box[0], box[1]}, low, from.getBases(InDim::Lane),
                       warps);
    Type elt = vt.getElementType();
    auto access = analyzeSharedAccess(chunk, buf.getSlotLayout(),
                                      elt.getIntOrFloatBitWidth());
    if (!access)
      return op.emitOpError() << "the slot does not hold a chunk";

    ValueRange values = adaptor.getValue();
    Value desc = adaptor.getDesc().front();
    Value bufBase = adaptor.getBuffer().front();
    Value tid = e.threadId();
    // A warp's slot in a round: its selecting warp bits.
    Value warpSlot;
    for (auto [k, bit] : llvm::enumerate(warpChunkBits)) {
      Value w = e.andI(arith::ShRUIOp::create(rewriter, e.loc, e.warpId(),
                                              e.i32(sel.bits[bit].second)),
                       e.i32(1));
      if (k)
        w = arith::ShLIOp::create(rewriter, e.loc, w, e.i32(k));
      warpSlot = warpSlot ? e.add(warpSlot, w) : w;
    }
    // The chunk a round's bits and a warp's bits pick.
    auto chunkOf = [&](int64_t r, int64_t w) {
      int64_t j = 0;
      for (auto [k, bit] : llvm::enumerate(regChunkBits))
        j |= ((r >> k) & 1) << bit;
      for (auto [k, bit] : llvm::enumerate(warpChunkBits))
        j |= ((w >> k) & 1) << bit;
      return j;
    };
    // A reducing store (the main loop's, whose slots are written again an
    // iteration later) whose slots hold every chunk goes out as one batch:
    // one wait (for the last tile's copies), two barriers and one bulk
    // group a tile. Otherwise a batch is a round (an epilogue's chunk j + 1
    // is written while chunk j's copy reads, as the GEMM benches measured).
    int64_t batch = op.getReduce() && inFlight == rounds ? rounds : 1;
    for (int64_t r0 = 0; r0 < rounds; r0 += batch) {
      // The copies that used these slots have read them: `inFlight`
      // rounds ago, or the last batch.
      waitBulkReads(e, batch == rounds ? 0 : inFlight - 1);
      e.barrier();
      for (int64_t r = r0; r < r0 + batch; ++r) {
        SmallVector<Value> regs;
        for (int64_t i = 0; i < (int64_t(1) << lowBits.size()); ++i) {
          int64_t reg = 0;
          for (auto [k, bit] : llvm::enumerate(lowBits))
            reg |= ((i >> k) & 1) << bit;
          for (auto [k, bit] : llvm::enumerate(regChunkBits))
            reg |= ((r >> k) & 1) << sel.bits[bit].second;
          regs.push_back(values[reg]);
        }
        Value slot = e.i32((r % inFlight) * perRound);
        if (warpSlot)
          slot = e.add(slot, warpSlot);
        storeToShared(e, regs, elt, *access,
                      slotPointer(e, buf, bufBase, slot));
      }
      // Generic-proxy writes become visible to the bulk copy.
      fenceProxyAsyncShared(e);
      e.barrier();
      for (int64_t r = r0; r < r0 + batch; ++r)
        for (int64_t w = 0; w < perRound; ++w) {
          Value slotPtr = slotPointer(
              e, buf, bufBase, e.i32((r % inFlight) * perRound + w));
          // The chunk's column offset on the innermost coordinate.
          SmallVector<Value> coords =
              tensorCoords(e, coordValues(adaptor.getCoords()), chunkOf(r, w) * box[1]);
          if (op.getReduce())
            bulkReduceAdd(e, desc, slotPtr, coords, firstThread(e, tid));
          else
            NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
                rewriter, e.loc, desc, slotPtr, coords,
                /*l2CacheHint=*/Value(),
                NVVM::TMAStoreModeAttr::get(rewriter.getContext(),
                                            NVVM::TMAStoreMode::TILE),
                firstThread(e, tid));
        }
      // Every thread commits (the others an empty group).
      NVVM::CpAsyncBulkCommitGroupOp::create(rewriter, e.loc);
    }
    rewriter.eraseOp(op);
    return success();
  }

  /// `cp.reduce.async.bulk.tensor .add` of the box at `coords` from `src`,
  /// issued where `pred` holds (NVVM's op takes no predicate).
  static void bulkReduceAdd(Emitter &e, Value desc, Value src,
                            ArrayRef<Value> coords, Value pred) {
    std::string asmStr = "{\n.reg .pred p;\nsetp.ne.b32 p, $0, 0;\n@p "
                         "cp.reduce.async.bulk.tensor." +
                         std::to_string(coords.size()) +
                         "d.global.shared::cta.add.tile.bulk_group [$1, {";
    std::string constraints = "r,l,r"; // pred, desc, src
    for (size_t c = 0; c < coords.size(); ++c) {
      asmStr += (c ? ", $" : "$") + std::to_string(3 + c);
      constraints += ",r";
    }
    asmStr += "}], [$2];\n}";
    SmallVector<Value> operands = {
        arith::ExtUIOp::create(e.b, e.loc, e.b.getI32Type(), pred), desc,
        sharedAddress(e, src)};
    operands.append(coords.begin(), coords.end());
    e.ptx(asmStr, constraints, {}, operands, /*sideEffects=*/true);
  }
};

struct ClusterRankLowering : public OpConversionPattern<ClusterRankOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ClusterRankOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, NVVM::ClusterId::create(rewriter, op.getLoc(),
                                                   rewriter.getI32Type()));
    return success();
  }
};

struct WarpgroupIndexLowering : public OpConversionPattern<WarpgroupIndexOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WarpgroupIndexOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    rewriter.replaceOp(op, arith::ShRUIOp::create(rewriter, e.loc,
                                                  e.threadId(), e.i32(7)));
    return success();
  }
};

struct TMAStoreWaitLowering : public OpConversionPattern<TMAStoreWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TMAStoreWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    if (!op.getWrites()) {
      waitBulkReads(e, op.getPendings());
      rewriter.eraseOp(op);
      return success();
    }
    NVVM::CpAsyncBulkWaitGroupOp::create(
        e.b, e.loc, e.b.getI32IntegerAttr(op.getPendings()), UnitAttr());
    NVVM::FenceProxyOp::create(
        e.b, e.loc,
        NVVM::ProxyKindAttr::get(e.b.getContext(),
                                 NVVM::ProxyKind::async_global),
        NVVM::SharedSpaceAttr());
    e.barrier();
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void tilec::populateTGPUPatterns(TypeConverter &converter,
                                 RewritePatternSet &patterns) {
  populateWGMMAPatterns(converter, patterns);
  patterns.add<PlacedBufferLowering<AllocOp>, PlacedBufferLowering<BarriersOp>,
               TransposeLowering, WaitLowering, ArriveLowering, TMALoadLowering,
               TMAStoreLowering, TMAStoreWaitLowering, ClusterSyncLowering,
               LocalLoadLowering,
               LocalStoreLowering, SlotStoreLowering, LocalStageLowering,
               TMAReadyLowering, WarpgroupIndexLowering, ClusterRankLowering,
               TryCancelLowering, ClaimTileLowering, ClaimedTileLowering,
               ReleaseTileCounterLowering,
               QueryCancelLowering, NamedBarrierLowering<NamedBarrierWaitOp>,
               NamedBarrierLowering<NamedBarrierArriveOp>>(converter, patterns.getContext());
}
