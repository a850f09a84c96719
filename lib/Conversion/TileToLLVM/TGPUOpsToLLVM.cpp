//===- TGPUOpsToLLVM.cpp - tgpu ops to NVVM -------------------------------===//
//
// Shared-memory buffers and mbarriers become addresses in the kernel's
// dynamic shared memory (their `offset`, from tile-allocate-shared-memory;
// lowerWarpSpecialize keeps each region copy's). mbarriers, bulk tensor copies, fences, named and
// cluster barriers, setmaxnreg and wgmma's fence and commit become upstream
// NVVM ops; an op one thread issues is predicated on that thread.
// Inline PTX is left where NVVM has no op that fits: wgmma.mma_async (its
// accumulators are registers the linear layout picks one by one, not a
// struct) and wgmma.wait_group (the accumulators pass through it as tied
// registers so that nothing reads them before the wait). wgmma reads its
// shared operands through descriptors derived from the buffers' linear
// layouts, and writes the accumulator registers the wgmma layout gives
// each thread.
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

struct LocalStoreLowering : public OpConversionPattern<LocalStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LocalStoreOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    auto vt = cast<RankedTensorType>(op.getValue().getType());
    auto at = slotAccess(op, e, vt, adaptor);
    if (failed(at))
      return failure();
    e.barrier();
    storeToShared(e, adaptor.getValue(), vt.getElementType(), at->first,
                  at->second);
    e.barrier();
    rewriter.eraseOp(op);
    return success();
  }
};

/// An encoded CUtensorMap is not all zero in its first 16 bytes (they hold
/// the global address).
struct TMAReadyLowering : public OpConversionPattern<TMAReadyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TMAReadyOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    Value desc = adaptor.getDesc().front();
    Type i64 = rewriter.getI64Type();
    Value w0 = LLVM::LoadOp::create(rewriter, e.loc, i64, desc, 8);
    Value p1 = LLVM::GEPOp::create(rewriter, e.loc, desc.getType(), i64, desc,
                                   ArrayRef<LLVM::GEPArg>{1});
    Value w1 = LLVM::LoadOp::create(rewriter, e.loc, i64, p1, 8);
    Value any = arith::OrIOp::create(rewriter, e.loc, w0, w1);
    rewriter.replaceOp(op, arith::CmpIOp::create(rewriter, e.loc,
                                                 arith::CmpIPredicate::ne, any,
                                                 e.i64(0)));
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

/// A bulk tensor copy's coordinates (`coords` outermost first, one value
/// each), innermost first as the copy takes them, `innerOffset` added to
/// the innermost.
SmallVector<Value> tensorCoords(Emitter &e, ArrayRef<ValueRange> coords,
                                int64_t innerOffset) {
  SmallVector<Value> out;
  for (int d = coords.size() - 1; d >= 0; --d) {
    Value c = coords[d].front();
    if (d == int(coords.size()) - 1 && innerOffset)
      c = e.add(c, e.i32(innerOffset));
    out.push_back(c);
  }
  return out;
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
    int64_t boxes = slot.back() / box.back();
    std::optional<int32_t> multicast = op.getMulticast();
    Value ctaRank, mask;
    if (multicast) {
      ctaRank = NVVM::ClusterId::create(rewriter, e.loc, rewriter.getI32Type());
      mask = arith::ConstantIntOp::create(rewriter, e.loc,
                                          rewriter.getI16Type(),
                                          (1 << *multicast) - 1);
    }
    // Boxes side by side along the innermost dim fill the slot.
    for (int64_t j = 0; j < boxes; ++j) {
      // (A box of more dims than the slot has leading 1s.)
      SmallVector<int64_t> first(slot.size(), 0);
      first.back() = j * box.back();
      // The copy writes a shared::cluster address: this CTA's slot (with
      // multicast, the same slot in each CTA of the mask). A shared::cta
      // address is that address in the cluster window (an addrspacecast
      // would go through a 64-bit generic address: two cvta a copy).
      Value dstPtr = LLVM::IntToPtrOp::create(
          rewriter, e.loc,
          LLVM::LLVMPointerType::get(rewriter.getContext(),
                                     int(NVVM::NVVMMemorySpace::SharedCluster)),
          sharedAddress(e, offsetPtr(e, base,
                                     e.i32(slotByteOffset(dst, first)))));
      // The issuing thread: thread 0 (of the CTA that owns box j).
      Value issuer = tid;
      if (multicast) {
        Value owner = e.i32(j / (boxes / *multicast));
        issuer = arith::SelectOp::create(
            rewriter, e.loc, e.eq(ctaRank, owner), tid, e.i32(1));
      }
      SmallVector<Value> coords =
          tensorCoords(e, adaptor.getCoords(), j * box.back());
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
            LLVM::PtrToIntOp::create(rewriter, e.loc, rewriter.getI32Type(),
                                     dstPtr),
            desc, leaderBar};
        operands.append(coords.begin(), coords.end());
        e.ptx(asmStr, constraints, {}, operands, /*sideEffects=*/true);
        continue;
      }
      NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
          rewriter, e.loc, dstPtr, desc, coords, bar,
          /*im2colOffsets=*/ValueRange(), mask, /*l2CacheHint=*/Value(),
          NVVM::TMALoadModeAttr::get(rewriter.getContext(),
                                     NVVM::TMALoadMode::TILE),
          /*isCTAOnly=*/rewriter.getBoolAttr(false), NVVM::CTAGroupKindAttr(),
          firstThread(e, issuer));
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
    int64_t chunks = vt.getShape()[1] / box[1];
    int64_t slots = buf.getNumSlots();
    SmallVector<unsigned> select = *chunkSelectBits(from, box[1]);
    // One chunk's registers: the layout without the selecting bits.
    LinearLayout::Bases low;
    SmallVector<unsigned> lowBits;
    for (auto [i, c] : llvm::enumerate(from.getBases(InDim::Register)))
      if (!llvm::is_contained(select, i)) {
        low.push_back(c);
        lowBits.push_back(i);
      }
    LinearLayout chunk({box[0], box[1]}, low, from.getBases(InDim::Lane),
                       from.getBases(InDim::Warp));
    Type elt = vt.getElementType();
    auto access = analyzeSharedAccess(chunk, buf.getSlotLayout(),
                                      elt.getIntOrFloatBitWidth());
    if (!access)
      return op.emitOpError() << "the slot does not hold a chunk";

    ValueRange values = adaptor.getValue();
    Value desc = adaptor.getDesc().front();
    Value bufBase = adaptor.getBuffer().front();
    Value tid = e.threadId();
    for (int64_t j = 0; j < chunks; ++j) {
      int64_t s = j % slots;
      // The copy that used this slot `slots` chunks ago has read it.
      waitBulkReads(e, slots - 1);
      e.barrier();
      SmallVector<Value> regs;
      for (int64_t i = 0; i < (int64_t(1) << lowBits.size()); ++i) {
        int64_t r = 0;
        for (auto [k, bit] : llvm::enumerate(lowBits))
          r |= ((i >> k) & 1) << bit;
        for (auto [k, bit] : llvm::enumerate(select))
          r |= ((j >> k) & 1) << bit;
        regs.push_back(values[r]);
      }
      Value slotPtr = slotPointer(e, buf, bufBase, e.i32(s));
      storeToShared(e, regs, elt, *access, slotPtr);
      // Generic-proxy writes become visible to the bulk copy.
      fenceProxyAsyncShared(e);
      e.barrier();
      // The chunk's column offset on the innermost coordinate.
      SmallVector<Value> coords =
          tensorCoords(e, adaptor.getCoords(), j * box[1]);
      NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
          rewriter, e.loc, desc, slotPtr, coords, /*l2CacheHint=*/Value(),
          NVVM::TMAStoreModeAttr::get(rewriter.getContext(),
                                      NVVM::TMAStoreMode::TILE),
          firstThread(e, tid));
      // Every thread commits (the others an empty group).
      NVVM::CpAsyncBulkCommitGroupOp::create(rewriter, e.loc);
    }
    rewriter.eraseOp(op);
    return success();
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
    waitBulkReads(e, op.getPendings());
    rewriter.eraseOp(op);
    return success();
  }
};

std::string ptxTypeName(Type t) {
  if (t.isBF16())
    return "bf16";
  if (t.isF16())
    return "f16";
  if (isa<Float8E4M3FNType>(t))
    return "e4m3";
  if (t.isInteger(8))
    return "s8";
  if (t.isF32())
    return "tf32";
  return "e5m2";
}

struct WGMMALowering : public OpConversionPattern<WGMMAOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WGMMAOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    auto aT = dyn_cast<SharedBufferType>(op.getA().getType());
    SharedBufferType bT = op.getB().getType();
    auto accT = cast<RankedTensorType>(op.getAcc().getType());
    LinearLayout acc = getLayout(accT);
    int64_t m = accT.getShape()[0], n = accT.getShape()[1];
    auto bShape = bT.getSlotShape();
    int64_t k = bShape[0];
    Type elt = bT.getElementType();
    int64_t kStep = wgmmaK(elt);
    std::optional<OperandDescriptor> aDesc;
    if (aT)
      aDesc = getOperandDescriptor(aT, 0);
    auto bDesc = getOperandDescriptor(bT, 1);
    if ((aT && !aDesc) || !bDesc)
      return op.emitOpError() << "operands have no descriptor";
    int numWarps = acc.getNumWarps();
    if (numWarps % 4 != 0)
      return op.emitOpError() << "needs whole warpgroups";
    int64_t rowsPerRep = 16 * numWarps;

    // A descriptor's low word is the start address (bits 4..17 of the
    // shared address) and the leading byte offset; its high word the
    // stride byte offset and the swizzle mode. Each wgmma gets the low word
    // of its operand's slot (a register) and forms the k-step's descriptor
    // inside its asm (the start plus the k-step's offset / 16, the high
    // word an immediate): the descriptors of every k-step, loop-invariant
    // for a Q held across the loop, would otherwise be hoisted out of the
    // loop and held as register pairs (32 registers for D = 256's Q).
    auto descWords = [](const OperandDescriptor &d) {
      uint64_t mode = d.swizzleBytes == 128 ? 1 : d.swizzleBytes == 64 ? 2 : 3;
      uint32_t hi = uint32_t(mode << 30) | uint32_t(d.strideByteOffset >> 4);
      uint32_t lo = uint32_t(d.leadingByteOffset >> 4) << 16;
      return std::pair<uint32_t, uint32_t>{lo, hi};
    };
    auto baseWord = [&](Value addr, const OperandDescriptor &d) {
      Value start = arith::ShRUIOp::create(
          rewriter, e.loc, e.andI(addr, e.i32(0x3FFFF)), e.i32(4));
      return arith::OrIOp::create(rewriter, e.loc, start,
                                  e.i32(int32_t(descWords(d).first)));
    };

    Value aBase, wgOffset;
    if (aT) {
      aBase = slotAddress(e, aT, adaptor.getA().front(),
                          adaptor.getASlot().front());
      // This warpgroup's rows: 64 * (warp / 4), as offsets in A's layout (a
      // linear map, so the bits of the warpgroup index add by XOR).
      Value wg = arith::ShRUIOp::create(rewriter, e.loc, e.warpId(), e.i32(2));
      wgOffset = e.i32(0);
      for (int64_t bit = 1; 64 * bit < rowsPerRep; bit *= 2) {
        Value on = e.andI(arith::ShRUIOp::create(rewriter, e.loc, wg,
                                                 e.i32(llvm::Log2_64(bit))),
                          e.i32(1));
        wgOffset = e.xorI(wgOffset,
                          e.mul(on, e.i32(slotByteOffset(aT, {64 * bit, 0}))));
      }
    }
    Value bBase = slotAddress(e, bT, adaptor.getB().front(),
                              adaptor.getBSlot().front());
    // A register A: per k-step the four 32-bit words of mma.sync's A
    // fragment (rows +0/+8, columns +0/+8 of lane 0's), found by their
    // coordinates in A's layout.
    ValueRange aRegs = aT ? ValueRange() : adaptor.getA();
    LinearLayout aLayout;
    if (!aT)
      aLayout = getLayout(op.getA().getType());
    auto aWord = [&](int64_t row, int64_t col) -> FailureOr<Value> {
      SmallVector<Value> pair;
      for (int64_t i = 0; i < 2; ++i) {
        auto r = aLayout.findRegister({row, col + i});
        if (!r)
          return failure();
        pair.push_back(aRegs[*r]);
      }
      return e.packWords(pair)[0];
    };

    SmallVector<Value> regs(adaptor.getAcc().begin(), adaptor.getAcc().end());
    int64_t perInstr = n / 2; // accumulator registers a thread of one m64nN
    bool integer = elt.isInteger(8); // s32 accumulators, no input scales
    std::string shape = "m64n" + std::to_string(n) + "k" + std::to_string(kStep);
    std::string tname = ptxTypeName(elt);
    std::string asmInstr = "wgmma.mma_async.sync.aligned." + shape +
                           (integer ? ".s32." : ".f32.") + tname + "." +
                           tname + " {";
    std::string constraints;
    for (int64_t i = 0; i < perInstr; ++i) {
      asmInstr += (i ? ", $" : "$") + std::to_string(i);
      constraints += std::string(i ? "," : "") + (integer ? "=r" : "=f");
    }
    for (int64_t i = 0; i < perInstr; ++i)
      constraints += "," + std::to_string(i);
    int64_t next = 2 * perInstr;
    asmInstr += "}, ";
    // The k-step's descriptor of the operand whose low word is operand
    // `$op`: `reg` = {low + offset / 16, high}.
    auto descAsm = [](const std::string &reg, int64_t op, int64_t offset,
                      uint32_t hi) {
      return "add.s32 " + reg + "l, $" + std::to_string(op) + ", " +
             std::to_string(offset >> 4) + ";\nmov.b64 " + reg + ", {" + reg +
             "l, " + std::to_string(hi) + "};\n";
    };
    int64_t aOp = -1, bOp;
    if (aT) {
      constraints += ",r";
      aOp = next++;
      asmInstr += "da";
    } else {
      constraints += ",r,r,r,r";
      asmInstr += "{$" + std::to_string(next) + ", $" +
                  std::to_string(next + 1) + ", $" + std::to_string(next + 2) +
                  ", $" + std::to_string(next + 3) + "}";
      next += 4;
    }
    constraints += ",r";
    bOp = next++;
    // scale-d, then the input negations (not for integers).
    asmInstr += integer ? ", db, 1" : ", db, 1, 1, 1";
    // The transpose immediates (16-bit inputs): A's only for a shared A.
    if (elt.getIntOrFloatBitWidth() == 16) {
      if (aT)
        asmInstr += std::string(", ") + (aDesc->kMajor ? "0" : "1");
      asmInstr += std::string(", ") + (bDesc->kMajor ? "0" : "1");
    }
    asmInstr += ";\n}";

    // The low words are the same in every lane; taken from lane 0 ptxas
    // knows it, and keeps them and the k-steps' descriptors in uniform
    // registers (UIADD3/UMOV next to each HGMMA instead of an add, a move
    // of the high word and two R2URs per descriptor).
    auto uniform = [&](Value v) -> Value {
      return NVVM::ShflOp::create(
          rewriter, e.loc, rewriter.getI32Type(), e.i32(-1), v, e.i32(0),
          e.i32(0x1f),
          NVVM::ShflKindAttr::get(rewriter.getContext(), NVVM::ShflKind::idx),
          UnitAttr());
    };
    Value aWord0, bWord0 = uniform(baseWord(bBase, *bDesc));
    if (aT)
      aWord0 = uniform(baseWord(e.add(aBase, wgOffset), *aDesc));
    NVVM::WgmmaFenceAlignedOp::create(rewriter, e.loc);
    SmallVector<Type> accTypes(perInstr, accT.getElementType());
    for (int64_t rep = 0; rep < m / rowsPerRep; ++rep) {
      // Registers of this rep in wgmma's order: d[i] is row
      // 8 * (i / 2 % 2), column 8 * (i / 4) + i % 2 of lane 0's fragment.
      SmallVector<int64_t> index;
      for (int64_t i = 0; i < perInstr; ++i) {
        auto r = acc.findRegister(
            {rep * rowsPerRep + 8 * (i / 2 % 2), 8 * (i / 4) + i % 2});
        if (!r)
          return op.emitOpError() << "accumulator is not in a wgmma layout";
        index.push_back(*r);
      }
      for (int64_t kk = 0; kk < k / kStep; ++kk) {
        SmallVector<Value> operands;
        for (int64_t i : index)
          operands.push_back(regs[i]);
        std::string asmStr = "{\n.reg .b64 db;\n.reg .b32 dbl;\n";
        if (aT) {
          asmStr += ".reg .b64 da;\n.reg .b32 dal;\n";
          operands.push_back(aWord0);
          asmStr += descAsm("da", aOp,
                            slotByteOffset(aT, {rep * rowsPerRep, kk * kStep}),
                            descWords(*aDesc).second);
        } else {
          int64_t row = rep * rowsPerRep, col = kk * kStep;
          for (auto [dr, dc] : {std::pair<int64_t, int64_t>{0, 0}, {8, 0},
                                {0, 8}, {8, 8}}) {
            FailureOr<Value> w = aWord(row + dr, col + dc);
            if (failed(w))
              return op.emitOpError()
                     << "A is not in the wgmma register-A layout";
            operands.push_back(*w);
          }
        }
        operands.push_back(bWord0);
        asmStr += descAsm("db", bOp, slotByteOffset(bT, {kk * kStep, 0}),
                          descWords(*bDesc).second);
        SmallVector<Value> out = e.ptx(asmStr + asmInstr, constraints,
                                       accTypes, operands, /*sideEffects=*/true);
        for (auto [i, v] : llvm::zip(index, out))
          regs[i] = v;
      }
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(rewriter, e.loc);
    rewriter.replaceOpWithMultiple(op, {regs});
    return success();
  }
};

/// The PTX that keeps a wgmma wait below the computation of `after` (see
/// tgpu.wgmma_wait): stores of their words, four a `st.shared.v4`, under a
/// predicate that is false at run time (dynamic shared memory is empty),
/// so the wait, which ptxas does not move above a store, comes after the
/// math. Appends the operands ($first on: after the tied outputs and
/// inputs) and their constraints.
std::string pinAfter(Emitter &e, ArrayRef<ValueRange> after, unsigned first,
                     std::string &constraints,
                     SmallVectorImpl<Value> &operands) {
  SmallVector<Value> words;
  for (ValueRange r : after)
    for (Value v : r) {
      Value w = e.toBits(v);
      unsigned bits = w.getType().getIntOrFloatBitWidth();
      if (bits < 32)
        w = LLVM::ZExtOp::create(e.b, e.loc, e.b.getI32Type(), w);
      words.push_back(w);
    }
  if (words.empty())
    return "";
  Value size = NVVM::DynamicSmemSize::create(e.b, e.loc, e.b.getI32Type());
  Value never = e.eq(size, e.i32(0));
  Value addr = LLVM::PtrToIntOp::create(e.b, e.loc, e.b.getI32Type(),
                                        e.smemStart());
  unsigned n = first;
  auto operand = [&](Value v, const char *c) {
    operands.push_back(v);
    constraints += (constraints.empty() ? "" : ",") + std::string(c);
    return "$" + std::to_string(n++);
  };
  std::string pred = operand(never, "b"), base = operand(addr, "r");
  std::string text;
  for (size_t i = 0; i < words.size();) {
    size_t left = words.size() - i, m = left >= 4 ? 4 : left >= 2 ? 2 : 1;
    text += "@" + pred + " st.shared" +
            (m == 1 ? "" : ".v" + std::to_string(m)) + ".b32 [" + base + "], ";
    std::string list;
    for (size_t k = 0; k < m; ++k)
      list += (k ? ", " : "") + operand(words[i + k], "r");
    text += (m == 1 ? list : "{" + list + "}") + ";\n";
    i += m;
  }
  return text;
}

struct WGMMAWaitLowering : public OpConversionPattern<WGMMAWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WGMMAWaitOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    // The values pass through the wait (tied registers), so nothing reads
    // them before it; `after`'s pinning stores come first.
    SmallVector<SmallVector<Value>> results = tiedAsm(
        e, adaptor.getValues(),
        "wgmma.wait_group.sync.aligned " + std::to_string(op.getPendings()) +
            ";",
        [&](unsigned first, std::string &constraints,
            SmallVectorImpl<Value> &operands) {
          return pinAfter(e, adaptor.getAfter(), first, constraints, operands);
        });
    SmallVector<ValueRange> ranges(results.begin(), results.end());
    rewriter.replaceOpWithMultiple(op, ranges);
    return success();
  }
};

} // namespace

void tilec::lowerWarpSpecialize(func::FuncOp func) {
  func.walk([&](WarpSpecializeOp op) {
    MLIRContext *ctx = op.getContext();
    Location loc = op.getLoc();
    int32_t launchThreads = 32 * op.getTotalWarps();
    func->setAttr(kLaunchWarpsAttr, IntegerAttr::get(IntegerType::get(ctx, 32),
                                                     op.getTotalWarps()));
    // With one block an SM (LowerToLLVM sets minctasm 1) a thread starts
    // with the block's even share of the register file; a group whose
    // budget is below it gives registers back, one above it takes them.
    int32_t share = TargetInfo::of(func).registerShare(launchThreads);

    // The groups of warps, in order: each copy of each region. Copy c of
    // a region is a clone of it with tgpu.consumer_index c and the c-th
    // offset of its buffers; a group takes its scratch shift (from
    // tile-allocate-shared-memory) and named barrier 1 + its number (0 is
    // the block's; tile-allocate-named-barriers gives other groups ids
    // after these).
    struct Group {
      Block *body;
      int32_t first, threads, barrier, scratch, regs;
    };
    SmallVector<Group> groups;
    SmallVector<std::unique_ptr<Block>> clones;
    int32_t first = 0;
    for (auto [i, region] : llvm::enumerate(op.getPartitionRegions())) {
      PartitionAttr p = op.getPartition(i);
      Block &body = region.front();
      SmallVector<Block *> copies = {&body};
      for (int c = 1; c < p.getCopies(); ++c) {
        clones.push_back(std::make_unique<Block>());
        IRMapping map;
        OpBuilder cb(ctx); // the clone has no region yet
        cb.setInsertionPointToStart(clones.back().get());
        for (Operation &o : body)
          cb.clone(o, map);
        copies.push_back(clones.back().get());
      }
      for (auto [c, copy] : llvm::enumerate(copies)) {
        copy->walk([&](Operation *o) {
          if (auto ci = dyn_cast<ConsumerIndexOp>(o)) {
            OpBuilder cb(ci);
            ci.replaceAllUsesWith(Value(arith::ConstantIntOp::create(
                cb, loc, cb.getI32Type(), int64_t(c))));
            ci.erase();
          } else if (auto a = dyn_cast<AllocOp>(o); a && a.getOffset()) {
            a.setOffset(ArrayRef<int64_t>{(*a.getOffset())[c]});
          } else if (auto br = dyn_cast<BarriersOp>(o); br && br.getOffset()) {
            br.setOffset(ArrayRef<int64_t>{(*br.getOffset())[c]});
          } else if (auto t = dyn_cast<TMemAllocOp>(o); t && t.getColumn()) {
            t.setColumn(ArrayRef<int64_t>{(*t.getColumn())[c]});
          }
        });
        int32_t scratch = 0;
        if (std::optional<ArrayRef<int64_t>> shifts = op.getScratch())
          scratch = int32_t((*shifts)[groups.size()]);
        groups.push_back({copy, first, 32 * p.getWarps(),
                          int32_t(groups.size()) + 1, scratch, p.getRegs()});
        first += 32 * p.getWarps();
      }
    }

    // A branch of the dispatch: a group's code, or a block of groups that
    // share warpgroups (sm_100a's one-warp load and MMA groups) with its
    // budget and its own dispatch. setmaxnreg is a warpgroup's, executed
    // by all its warps at one instruction: a block sets it before it
    // splits into its groups. The threads past the last group (a launch
    // rounded up to whole warpgroups) join their block's budget and
    // nothing else.
    struct Item {
      int32_t first, threads, barrier, scratch, regs;
      std::function<void(OpBuilder &)> emit;
    };
    Value tid;
    // if (tid < end of item 0) { item 0 } else if ... else { last item },
    // the last guarded too where threads follow it; each scf.if records
    // both its branches' ranges.
    std::function<void(OpBuilder &, ArrayRef<Item>, int32_t)> cascade =
        [&](OpBuilder &b, ArrayRef<Item> items, int32_t spanEnd) {
          for (auto [i, item] : llvm::enumerate(items)) {
            int32_t end = item.first + item.threads;
            bool last = i + 1 == items.size();
            if (last && end >= spanEnd) {
              item.emit(b);
              return;
            }
            Item rest = last ? Item{end, spanEnd - end, item.barrier,
                                    item.scratch, item.regs, nullptr}
                             : items[i + 1];
            Value bound =
                arith::ConstantIntOp::create(b, loc, b.getI32Type(), end);
            auto ifOp = scf::IfOp::create(
                b, loc, TypeRange{},
                arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tid,
                                      bound),
                /*withElseRegion=*/true);
            ifOp->setAttr(kThreadRangeAttr,
                          b.getDenseI32ArrayAttr(
                              {item.first, item.threads, item.barrier,
                               item.scratch, item.regs, rest.first,
                               spanEnd - rest.first, rest.barrier,
                               rest.scratch, rest.regs}));
            OpBuilder tb(ifOp.thenBlock(), std::prev(ifOp.thenBlock()->end()));
            item.emit(tb);
            b.setInsertionPoint(ifOp.elseBlock(),
                                std::prev(ifOp.elseBlock()->end()));
          }
        };
    auto groupItem = [&](const Group &g) {
      return Item{g.first, g.threads, g.barrier, g.scratch, g.regs,
                  [&g](OpBuilder &b) {
                    Block *dst = b.getInsertionBlock();
                    dst->getOperations().splice(b.getInsertionPoint(),
                                                g.body->getOperations());
                  }};
    };
    // Blocks: a group that starts a warpgroup starts a block; one that
    // does not joins the block before it (the verifier made their budgets
    // one). A block reaches up to the next block's first thread, the last
    // to the end of the launch.
    SmallVector<std::pair<size_t, size_t>> spans; // [begin, end) of groups
    for (auto [g, group] : llvm::enumerate(groups))
      if (spans.empty() || group.first % 128 == 0)
        spans.push_back({g, g + 1});
      else
        spans.back().second = g + 1;
    SmallVector<SmallVector<Item>> members(spans.size());
    SmallVector<Item> blocks;
    for (auto [k, span] : llvm::enumerate(spans)) {
      const Group &head = groups[span.first];
      int32_t blockEnd = k + 1 < spans.size() ? groups[spans[k + 1].first].first
                                              : launchThreads;
      for (size_t g = span.first; g < span.second; ++g)
        members[k].push_back(groupItem(groups[g]));
      blocks.push_back(Item{
          head.first, blockEnd - head.first, head.barrier, head.scratch,
          head.regs, [&, k, blockEnd, regs = head.regs](OpBuilder &b) {
            if (regs != 0) // no budget: the launch's share
              NVVM::SetMaxRegisterOp::create(
                  b, loc, b.getI32IntegerAttr(regs),
                  NVVM::SetMaxRegisterActionAttr::get(
                      ctx, regs < share ? NVVM::SetMaxRegisterAction::decrease
                                        : NVVM::SetMaxRegisterAction::increase));
            cascade(b, members[k], blockEnd);
          }});
    }
    OpBuilder b(op);
    tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
    cascade(b, blocks, launchThreads);
    op.erase();
  });
}

void tilec::populateTGPUPatterns(TypeConverter &converter,
                                 RewritePatternSet &patterns) {
  patterns.add<PlacedBufferLowering<AllocOp>, PlacedBufferLowering<BarriersOp>,
               TransposeLowering, WaitLowering, ArriveLowering, TMALoadLowering,
               TMAStoreLowering, TMAStoreWaitLowering, WGMMALowering,
               WGMMAWaitLowering, ClusterSyncLowering, LocalLoadLowering,
               LocalStoreLowering,
               TMAReadyLowering, WarpgroupIndexLowering, ClusterRankLowering,
               TryCancelLowering,
               QueryCancelLowering, NamedBarrierLowering<NamedBarrierWaitOp>,
               NamedBarrierLowering<NamedBarrierArriveOp>>(converter, patterns.getContext());
}
