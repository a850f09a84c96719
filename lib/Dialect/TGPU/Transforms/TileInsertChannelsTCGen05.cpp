//===- TileInsertChannelsTCGen05.cpp - tcgen05's channels -----------------===//
//
// tile-insert-channels on sm_100a (the file comment of
// TileInsertChannels.cpp shows the IR): the loop's tcgen05 MMAs onto
// accumulators in tensor memory, attention's S, P and O (FlashAttention-
// 4's structure), and the CTA pair's halved B.
//
//===----------------------------------------------------------------------===//

#include "TileInsertChannels.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;
using namespace tilec::insert_channels;

tgpu::TensorMemoryBufferType KernelChannels::tmemRing(RankedTensorType t) {
  return tgpu::TensorMemoryBufferType::get(
      t.getContext(), {ShapedType::kDynamic, 128, t.getShape()[1]},
      t.getElementType());
}

ValueRange KernelChannels::readOut(OpBuilder &b, Location loc, tgpu::ChannelOp ch,
                          Value index, TypeRange types,
                          llvm::function_ref<void(Operation *)> mark) {
  auto w = tgpu::ChannelWaitOp::create(b, loc, ch.getChannel(), index);
  mark(w);
  mark(tgpu::Tcgen05FenceOp::create(b, loc, tgpu::Tcgen05FenceKind::After));
  SmallVector<Value> loaded;
  for (auto [type, ring] : llvm::zip(types, ch.getBuffers())) {
    auto ld = tgpu::TMemLoadOp::create(b, loc, type, ring, w,
                                       b.getI64IntegerAttr(0));
    mark(ld);
    loaded.push_back(ld);
  }
  auto ready = tgpu::TMemWaitOp::create(b, loc, types,
                                        tgpu::TMemWaitKind::Load, loaded);
  mark(ready);
  mark(tgpu::Tcgen05FenceOp::create(b, loc, tgpu::Tcgen05FenceKind::Before));
  mark(tgpu::ChannelReleaseOp::create(b, loc, ch.getChannel(), index));
  return ready.getResults();
}

int KernelChannels::rescaledAccumulator(DotOp dot, arith::MulFOp &mul, Value &factor) {
  mul = dot.getAcc().getDefiningOp<arith::MulFOp>();
  if (!mul || !mul->hasOneUse() || !dot.getResult().hasOneUse())
    return -1;
  for (auto [k, v] : llvm::enumerate(mul->getOperands())) {
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg || arg.getOwner() != loop.getBody() ||
        arg.getArgNumber() == 0 || !arg.hasOneUse() ||
        loop.getBody()->getTerminator()->getOperand(arg.getArgNumber() -
                                                    1) != dot.getResult())
      continue;
    factor = mul->getOperand(1 - k);
    return arg.getArgNumber() - 1;
  }
  return -1;
}

LogicalResult KernelChannels::insertTCGen05Attention(func::FuncOp func) {
  MMA sm = mmas[0], om = mmas[1];
  DotOp sDot = sm.dot, oDot = om.dot;
  arith::MulFOp mul;
  Value factor;
  int accIdx = rescaledAccumulator(oDot, mul, factor);
  if (sm.a < 0 || !operands[sm.a].once || operands[sm.b].once ||
      om.a >= 0 || operands[om.b].once ||
      tgpu::getMMA(oDot).getA() != tgpu::OperandSource::TensorMemory ||
      accIdx < 0 || mul.getType() != oDot.getType())
    return sDot.emitError()
           << "sm_100a: attention's loop is S = Q·Kᵀ (Q copied once before "
              "the loop, K in it) and O = P·V (P written to tensor memory, "
              "V copied in the loop) onto the O the loop carries, rescaled "
              "by a factor";
  int numWarps = getNumWarps(func);
  auto sType = cast<RankedTensorType>(sDot.getType());
  auto oType = cast<RankedTensorType>(oDot.getType());
  auto pType = cast<RankedTensorType>(oDot.getA().getType());
  Value init = loop.getInitArgs()[accIdx];
  setTMAViews(func);

  // K and V: a channel each, a use an iteration, released by the MMA
  // thread's commit; Q: once a tile. S: two deep, filled by its MMA's
  // commit, released by the softmax warps once read; P: filled by the
  // softmax warps, released by P·V's commit; O: filled by P·V's commit,
  // released by the softmax warps once rescaled (and by the epilogue).
  auto kRelease = tgpu::ReleaseKind::MMA;
  Operand &q = operands[sm.a], &k = operands[sm.b], &v = operands[om.b];
  auto slotRing = [](Operand &o) {
    return o.slot.type.withNumSlots(ShapedType::kDynamic);
  };
  auto kCh = makeChannel(func, {slotRing(k)}, 1, 0, fillKind(), kRelease,
                         producerWarps());
  auto vCh = makeChannel(func, {slotRing(v)}, 1, 0, fillKind(), kRelease,
                         producerWarps());
  auto qCh = makeChannel(func, {slotRing(q)}, 1, tgpu::getComputeCopies(loop),
                         fillKind(), kRelease, producerWarps());
  auto sCh = makeChannel(func, {tmemRing(sType)}, numWarps, 2,
                         tgpu::FillKind::MMA, tgpu::ReleaseKind::Arrive);
  auto pCh = makeChannel(func, {tmemRing(pType)}, 1, 1,
                         tgpu::FillKind::Arrive, tgpu::ReleaseKind::MMA,
                         numWarps);
  auto oCh = makeChannel(func, {tmemRing(oType)}, numWarps, 1,
                         tgpu::FillKind::MMA, tgpu::ReleaseKind::Arrive);
  k.ring = kCh.getBuffers().front();
  v.ring = vCh.getBuffers().front();
  q.ring = qCh.getBuffers().front();
  k.channel = 0;
  v.channel = 1;
  chans.assign({kCh.getChannel(), vCh.getChannel()});
  onceCh = qCh.getChannel();
  Value sRing = sCh.getBuffers().front(), pRing = pCh.getBuffers().front(),
        oRing = oCh.getBuffers().front();

  onceTile = {};
  addCounter();
  insertProducer();
  Location loc = loop.getLoc();
  Value i = loop.getRegionIterArgs().back();
  Value i0 = loop.getInitArgs().back();
  const int32_t kC = tgpu::kComputePartition, kM = tgpu::kMMAPartition;
  // The counter and its start are every partition's now.
  tag(i0.getDefiningOp(), {tgpu::kLoadPartition, kC, kM});
  Value qOperand = mmaOperand(q), kOperand = mmaOperand(k),
        vOperand = mmaOperand(v);

  // S(j) = Q·K(j)ᵀ into S's slot of use j: the MMA thread's.
  Location sLoc = sDot.getLoc();
  auto issueS = [&](OpBuilder &b, Value j, Value qSlot) {
    auto kw = tgpu::ChannelWaitOp::create(b, loc, kCh.getChannel(), j);
    auto ss = tgpu::ChannelAcquireOp::create(b, loc, sCh.getChannel(), j);
    // (After the softmax's tcgen05.ld of the slot's last use.)
    tgpu::Tcgen05FenceOp::create(b, loc, tgpu::Tcgen05FenceKind::After);
    auto off = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0);
    tgpu::Tcgen05MMAOp::create(b, sLoc, qOperand, qSlot, kOperand,
                               kw, sRing, ss, off, b.getI32IntegerAttr(1));
    tgpu::ChannelFillOp::create(b, loc, sCh.getChannel(), j);
    tgpu::ChannelReleaseOp::create(b, loc, kCh.getChannel(), j);
  };
  auto inMMA = [&](Operation *op) { tag(op, {kM}); return op; };
  auto inCompute = [&](Operation *op) { tag(op, {kC}); return op; };

  // Before the loop (the MMA thread): Q, and S of the first iteration.
  OpBuilder pb(loop);
  auto qw = tgpu::ChannelWaitOp::create(pb, loc, onceCh, onceTile);
  inMMA(qw);
  auto runs = arith::CmpIOp::create(pb, loc, arith::CmpIPredicate::slt,
                                    loop.getLowerBound(),
                                    loop.getUpperBound());
  tag(runs, {kC, kM});
  auto first = scf::IfOp::create(pb, loc, TypeRange{}, runs, false);
  inMMA(first);
  {
    OpBuilder fb = OpBuilder::atBlockBegin(first.thenBlock());
    issueS(fb, i0, qw);
  }

  // Where S's dot stood: the softmax warps read S out of tensor memory.
  OpBuilder lb(sDot);
  sDot.getResult().replaceAllUsesWith(
      readOut(lb, loc, sCh, i, {sType},
              [&](Operation *op) { inCompute(op); }).front());
  sDot.erase();

  // Where O's dot stood: the softmax warps write P into tensor memory
  // and hand it over; then, after the first iteration, they wait for the
  // last P·V, rescale O in tensor memory and give it back (after P, so
  // that P's registers are free for O's); the MMA thread issues the next
  // iteration's S (so the next softmax overlaps this P·V), then P·V onto
  // O.
  Value acc = loop.getRegionIterArgs()[accIdx];
  lb.setInsertionPoint(oDot);
  auto pa = inCompute(
      tgpu::ChannelAcquireOp::create(lb, loc, pCh.getChannel(), i));
  // (After the last P·V's reads of P, which its commit released.)
  inCompute(tgpu::Tcgen05FenceOp::create(lb, loc,
                                         tgpu::Tcgen05FenceKind::After));
  inCompute(tgpu::TMemStoreOp::create(lb, loc, oDot.getA(), pRing,
                                      pa->getResult(0),
                                      lb.getI64IntegerAttr(0)));
  inCompute(tgpu::TMemWaitOp::create(lb, loc, TypeRange{},
                                     tgpu::TMemWaitKind::Store,
                                     ValueRange{}));
  inCompute(tgpu::Tcgen05FenceOp::create(lb, loc,
                                         tgpu::Tcgen05FenceKind::Before));
  inCompute(tgpu::ChannelFillOp::create(lb, loc, pCh.getChannel(), i));
  auto started = inCompute(arith::CmpIOp::create(
      lb, loc, arith::CmpIPredicate::ugt, i, i0));
  auto rescale = inCompute(scf::IfOp::create(
      lb, loc, TypeRange{}, started->getResult(0), false));
  {
    OpBuilder rb = OpBuilder::atBlockBegin(
        cast<scf::IfOp>(rescale).thenBlock());
    Value prev = arith::SubIOp::create(
        rb, loc, i, arith::ConstantIntOp::create(rb, loc, rb.getI32Type(), 1));
    auto ow = tgpu::ChannelWaitOp::create(rb, loc, oCh.getChannel(), prev);
    tgpu::Tcgen05FenceOp::create(rb, loc, tgpu::Tcgen05FenceKind::After);
    // O a column chunk at a time, at most 64 values a thread each, where
    // the factor is a broadcast (one per row: rebuilt for the chunk).
    auto bcast = factor.getDefiningOp<BroadcastOp>();
    int64_t d = oType.getShape()[1];
    int64_t perThread = 128 * d / (32 * numWarps), chunks = 1;
    std::vector<int64_t> chunkShape = {128, d};
    while (bcast && perThread / chunks > 64 && d / chunks % 64 == 0)
      chunks *= 2;
    chunkShape[1] = d / chunks;
    auto chunkType = cast<RankedTensorType>(withLayout(
        oType, LinearLayout::tmem32x32b(chunkShape, numWarps)));
    chunkType = RankedTensorType::get(chunkShape, oType.getElementType(),
                                      chunkType.getEncoding());
    if (chunks > 1 &&
        getLayout(chunkType).broadcastOperand({1}) !=
            getLayout(bcast.getSrc().getType()))
      chunks = 1, chunkType = oType;
    for (int64_t c = 0; c < chunks; ++c) {
      IntegerAttr column = rb.getI64IntegerAttr(c * d / chunks);
      auto ld = tgpu::TMemLoadOp::create(rb, loc, chunkType, oRing, ow,
                                         column);
      auto ready = tgpu::TMemWaitOp::create(rb, loc, TypeRange{chunkType},
                                            tgpu::TMemWaitKind::Load,
                                            ValueRange{ld.getResult()});
      IRMapping map;
      map.map(acc, ready.getResult(0));
      if (chunks > 1)
        map.map(factor, BroadcastOp::create(rb, loc, chunkType,
                                            bcast.getSrc()));
      Operation *scaled = rb.clone(*mul, map);
      scaled->removeAttr(tgpu::kPartitionAttr);
      scaled->getResult(0).setType(chunkType);
      tgpu::TMemStoreOp::create(rb, loc, scaled->getResult(0), oRing, ow,
                                column);
    }
    tgpu::TMemWaitOp::create(rb, loc, TypeRange{}, tgpu::TMemWaitKind::Store,
                             ValueRange{});
    tgpu::Tcgen05FenceOp::create(rb, loc, tgpu::Tcgen05FenceKind::Before);
    tgpu::ChannelReleaseOp::create(rb, loc, oCh.getChannel(), prev);
  }

  auto nextK = inMMA(arith::AddIOp::create(lb, loc, loop.getInductionVar(),
                                           loop.getStep()));
  auto more = inMMA(arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::slt,
                                          nextK->getResult(0),
                                          loop.getUpperBound()));
  auto ahead = inMMA(scf::IfOp::create(lb, loc, TypeRange{},
                                       more->getResult(0), false));
  {
    OpBuilder ab = OpBuilder::atBlockBegin(cast<scf::IfOp>(ahead).thenBlock());
    Value j = arith::AddIOp::create(
        ab, loc, i, arith::ConstantIntOp::create(ab, loc, ab.getI32Type(), 1));
    issueS(ab, j, qw);
  }
  auto oa = inMMA(tgpu::ChannelAcquireOp::create(lb, loc, oCh.getChannel(), i));
  auto pw = inMMA(tgpu::ChannelWaitOp::create(lb, loc, pCh.getChannel(), i));
  inMMA(tgpu::Tcgen05FenceOp::create(lb, loc, tgpu::Tcgen05FenceKind::After));
  auto vw = inMMA(tgpu::ChannelWaitOp::create(lb, loc, vCh.getChannel(), i));
  auto on = inMMA(arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::ugt,
                                        i, i0));
  inMMA(tgpu::Tcgen05MMAOp::create(
      lb, oDot.getLoc(), pRing, pw->getResult(0), vOperand,
      vw->getResult(0), oRing, oa->getResult(0), on->getResult(0),
      lb.getI32IntegerAttr(1)));
  inMMA(tgpu::ChannelFillOp::create(lb, loc, oCh.getChannel(), i));
  inMMA(tgpu::ChannelReleaseOp::create(lb, loc, vCh.getChannel(), i));
  inMMA(tgpu::ChannelReleaseOp::create(lb, loc, pCh.getChannel(), i));
  oDot.getResult().replaceAllUsesWith(acc);
  oDot.erase();
  mul.erase();

  Block *body = loop.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  lb.setInsertionPoint(yield);
  auto one = arith::ConstantIntOp::create(lb, loc, lb.getI32Type(), 1);
  tag(one, {tgpu::kLoadPartition, kC, kM});
  auto next = arith::AddIOp::create(lb, loc, i, one);
  tag(next, {tgpu::kLoadPartition, kC, kM});
  yield->setOperand(yield->getNumOperands() - 1, next);
  eraseDead(body);

  // After the loop: Q's slot is free once the MMAs completed; the
  // epilogue reads O out of tensor memory after the last P·V (the
  // loop's init where it did not run).
  OpBuilder ab(loop->getContext());
  ab.setInsertionPointAfter(loop);
  inMMA(tgpu::ChannelReleaseOp::create(ab, loc, onceCh, onceTile));
  auto pick = inCompute(scf::IfOp::create(ab, loc, TypeRange{oType},
                                          runs.getResult(), true));
  {
    auto ifOp = cast<scf::IfOp>(pick);
    OpBuilder tb = OpBuilder::atBlockBegin(ifOp.thenBlock());
    Value last = arith::SubIOp::create(
        tb, loc, loop.getResults().back(),
        arith::ConstantIntOp::create(tb, loc, tb.getI32Type(), 1));
    scf::YieldOp::create(
        tb, loc, readOut(tb, loc, oCh, last, {oType}, [](Operation *) {}));
    OpBuilder eb = OpBuilder::atBlockBegin(ifOp.elseBlock());
    scf::YieldOp::create(eb, loc, init);
  }
  loop.getResult(accIdx).replaceAllUsesWith(pick->getResult(0));
  dropIterArg(accIdx);
  eraseUnused(q.load);
  return success();
}

LogicalResult KernelChannels::insertTCGen05(func::FuncOp func) {
  if (mmas.size() == 2 && tgpu::getMMA(mmas[1].dot).getA() ==
                              tgpu::OperandSource::TensorMemory)
    return insertTCGen05Attention(func);
  Location loc = loop.getLoc();
  Block *body = loop.getBody();
  // Per MMA: its accumulator's iter_arg index, init and type.
  SmallVector<unsigned> accIdx;
  SmallVector<Value> inits;
  SmallVector<Type> accTypes, ringTypes;
  int64_t columns = 0;
  for (MMA &m : mmas) {
    BlockArgument iterArg = carriedAccumulator(m.dot);
    if (!iterArg || m.a < 0 ||
        llvm::any_of(operands, [](const Operand &o) { return o.once; }))
      return m.dot.emitError()
             << "sm_100a: a warp-specialized loop's tcgen05 MMAs each add "
                "onto an accumulator the loop carries for it alone, both "
                "operands copied with TMA in the loop (a GEMM's main loop)";
    auto accType = cast<RankedTensorType>(m.dot.getType());
    accIdx.push_back(iterArg.getArgNumber() - 1);
    inits.push_back(loop.getInitArgs()[accIdx.back()]);
    accTypes.push_back(accType);
    ringTypes.push_back(tmemRing(accType));
    columns += accType.getShape()[1];
  }
  int numWarps = getNumWarps(func);
  int32_t ctaGroup = 1;
  if (func->hasAttr(tgpu::kCtaGroupAttr)) {
    ctaGroup = 2;
    if (failed(halveB()))
      return failure();
  }
  setTMAViews(func);

  // The channels: the operands' (the MMA thread's commit releases a
  // use), the accumulators' (filled by the MMAs' commit, released by
  // each epilogue warp).
  // (Each made at the top of the kernel: the operands' ends up first.)
  int64_t depth =
      func->hasAttr(tgpu::kPersistentAttr) && 2 * columns <= 512 ? 2 : 1;
  auto accCh = makeChannel(func, ringTypes, numWarps, depth,
                           tgpu::FillKind::MMA, tgpu::ReleaseKind::Arrive);
  SmallVector<Type> types;
  for (Operand &o : operands)
    types.push_back(o.slot.type.withNumSlots(ShapedType::kDynamic));
  auto ch = makeChannel(func, types, 1, 0, fillKind(), tgpu::ReleaseKind::MMA,
                        producerWarps());
  for (auto [o, ring] : llvm::zip(operands, ch.getBuffers()))
    o.ring = ring;
  chans.assign({ch.getChannel()});
  for (Operand &o : operands)
    o.channel = 0;

  addCounter();
  insertProducer();
  Value i = loop.getRegionIterArgs().back();
  Value i0 = loop.getInitArgs().back();
  auto mmaPart = [](Operation *op) { tag(op, {tgpu::kMMAPartition}); };
  auto epilogue = [](Operation *op) { tag(op, {tgpu::kComputePartition}); };

  // The accumulators: the MMA thread's for the tile, before the loop.
  OpBuilder pb(loop);
  auto t0 = arith::ConstantIntOp::create(pb, loc, pb.getI32Type(), 0);
  tag(t0, {tgpu::kComputePartition, tgpu::kMMAPartition});
  auto accSlot = tgpu::ChannelAcquireOp::create(pb, loc, accCh.getChannel(), t0);
  mmaPart(accSlot);
  // (The epilogue's tcgen05.ld of the slot's last tile came before the
  // release this acquire waited for: PTX ISA 9.7.16.6.4.)
  mmaPart(tgpu::Tcgen05FenceOp::create(pb, loc,
                                       tgpu::Tcgen05FenceKind::After));

  // The MMAs where the dots stood (waiting for the use before the
  // first), the use released by their completion after the last.
  OpBuilder lb(mmas.front().dot);
  auto w = tgpu::ChannelWaitOp::create(lb, loc, ch.getChannel(), i);
  mmaPart(w);
  auto on = arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::ugt, i, i0);
  mmaPart(on);
  Operation *last = nullptr;
  for (auto [k, m] : llvm::enumerate(mmas)) {
    DotOp dot = m.dot;
    lb.setInsertionPoint(dot);
    last = tgpu::Tcgen05MMAOp::create(
        lb, dot.getLoc(), mmaOperand(operands[m.a], m.aT), w,
        mmaOperand(operands[m.b], m.bT), w, accCh.getBuffers()[k], accSlot, on,
        lb.getI32IntegerAttr(ctaGroup));
    mmaPart(last);
    dot.getResult().replaceAllUsesWith(loop.getRegionIterArgs()[accIdx[k]]);
    dot.erase();
  }
  lb.setInsertionPointAfter(last);
  mmaPart(tgpu::ChannelReleaseOp::create(lb, loc, ch.getChannel(), i));

  body = loop.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  lb.setInsertionPoint(yield);
  auto one = arith::ConstantIntOp::create(lb, loc, lb.getI32Type(), 1);
  tag(one, {tgpu::kLoadPartition, tgpu::kMMAPartition});
  auto next = arith::AddIOp::create(lb, loc, i, one);
  tag(next, {tgpu::kLoadPartition, tgpu::kMMAPartition});
  yield->setOperand(yield->getNumOperands() - 1, next);
  eraseDead(body);

  // After the loop: the MMAs' commit fills the accumulators; the
  // epilogue reads them out of tensor memory and gives them back.
  OpBuilder ab(loop->getContext());
  ab.setInsertionPointAfter(loop);
  mmaPart(tgpu::ChannelFillOp::create(ab, loc, accCh.getChannel(), t0));
  ValueRange ready = readOut(ab, loc, accCh, t0, accTypes, epilogue);
  // A loop that did not run (K = 0) issued no MMA: its inits stand.
  auto runs = arith::CmpIOp::create(ab, loc, arith::CmpIPredicate::slt,
                                    loop.getLowerBound(),
                                    loop.getUpperBound());
  epilogue(runs);
  auto pick = scf::IfOp::create(ab, loc, accTypes, runs,
                                /*withElseRegion=*/true);
  epilogue(pick);
  OpBuilder tb = OpBuilder::atBlockBegin(pick.thenBlock());
  scf::YieldOp::create(tb, loc, ready);
  OpBuilder eb = OpBuilder::atBlockBegin(pick.elseBlock());
  scf::YieldOp::create(eb, loc, inits);
  for (auto [k, idx] : llvm::enumerate(accIdx))
    loop.getResult(idx).replaceAllUsesWith(pick.getResult(k));
  SmallVector<unsigned> dropped(accIdx);
  llvm::sort(dropped, std::greater<unsigned>());
  for (unsigned idx : dropped)
    dropIterArg(idx);
  return success();
}

LogicalResult KernelChannels::halveB() {
  for (MMA &m : mmas) {
    Operand &o = operands[m.b];
    if (o.pairDim >= 0)
      continue;
    if (llvm::any_of(mmas, [&](const MMA &x) { return x.a == m.b; }))
      return m.dot.emitError() << "a CTA pair's B is also an A";
    auto type = cast<RankedTensorType>(o.load->getResult(0).getType());
    o.pairDim = type.getRank() - (m.bT ? 2 : 1);
    o.pairHalf = type.getShape()[o.pairDim] / 2;
    FailureOr<tgpu::TMASlot> slot = tgpu::planHalfSlot(type, o.pairDim);
    if (failed(slot))
      return o.load->emitError() << "half of B's columns is no slot of B's "
                                   "swizzle for the CTA pair";
    o.slot = *slot;
  }
  return success();
}
