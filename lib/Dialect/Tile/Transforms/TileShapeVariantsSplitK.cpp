//===- TileShapeVariantsSplitK.cpp - a member split along K ---------------===//
//
// tile-shape-variants' split-K and stream-K members: the rewrite of a
// kernel's K loop into units whose partial tiles the last unit sums.
//
//===----------------------------------------------------------------------===//

#include "ShapeVariants.h"

#include "tilec/Dialect/Tile/TargetInfo.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

#include "mlir/IR/IRMapping.h"

using namespace tilec::shape_variants;

/// Rewrites `func` to compute an output tile in units along K. Split-K:
/// unit z of n = `split.ways` runs K steps [z * per, (z + 1) * per) (per =
/// cdiv(cdiv(K, BK), n)), its partial in slot t n + z (t: the tile).
/// Stream-K: the persistent schedule cuts the tiles (tile.stream_k_unit:
/// the unit's steps, its slot, the first of its tile's consecutive slots
/// and their number).
/// The n > 1 units of a tile sum their f32 (i32) partials as a binary
/// tree (see `tree` below: log2(n) reads on the longest path, the result
/// independent of the arrival order); the unit left at the top runs the
/// epilogue, and every counter is back at 0 for the next launch.
/// Workspace: the partials (row-major tiles); semaphores: 4 i32 counters
/// a slot.
LogicalResult shape_variants::splitK(func::FuncOp func, const KLoop &k, Split split,
                     std::string &why) {
  MLIRContext *ctx = func.getContext();
  scf::ForOp loop = k.loop;
  auto grid = func->getAttrOfType<GridAttr>(kGridAttr);
  if (loop.getNumRegionIterArgs() != 1) {
    why = "the K loop carries more than the accumulator";
    return failure();
  }
  auto init = loop.getInitArgs()[0].getDefiningOp<arith::ConstantOp>();
  auto initValue = init ? dyn_cast<SplatElementsAttr>(init.getValue())
                        : SplatElementsAttr();
  bool zero = initValue && (isa<FloatType>(initValue.getElementType())
                                ? initValue.getSplatValue<APFloat>().isZero()
                                : initValue.getSplatValue<APInt>().isZero());
  if (!zero) {
    why = "the accumulator does not start at zero";
    return failure();
  }
  if (!grid.axis(2).isLiteral(1)) {
    why = "the grid has a z axis";
    return failure();
  }
  bool usesZ = false;
  func.walk([&](Operation *op) {
    auto pid = dyn_cast<ProgramIdOp>(op);
    usesZ |= isa<NumProgramsOp>(op) || (pid && pid.getAxis() == 2);
  });
  if (usesZ) {
    why = "the kernel reads program_id z or num_programs";
    return failure();
  }
  Block &body = func.getBody().front();
  auto ret = dyn_cast<func::ReturnOp>(body.getTerminator());
  if (!ret || ret.getNumOperands() != 0) {
    why = "the kernel returns values";
    return failure();
  }
  auto accType = cast<RankedTensorType>(loop.getResult(0).getType());
  Type elem = accType.getElementType();
  if (!elem.isF32() && !elem.isInteger(32)) {
    why = "the accumulator is not f32 or i32";
    return failure();
  }
  int64_t rows = accType.getDimSize(0), cols = accType.getDimSize(1);
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  auto cst = [&](OpBuilder &ob, int64_t v) {
    return arith::ConstantIntOp::create(ob, loc, i32, v);
  };
  bool stream = split.streamK > 1;
  Value bk = cst(b, k.step);
  // The unit's K steps [loSteps, hiSteps) of its tile, the workspace slot
  // of its partial, the first slot of its tile's units (consecutive, in K
  // order) and their number. Split-K: unit z of `ways` equal ones, tile
  // t's slots t * ways ...; stream-K: as the persistent schedule cuts the
  // tiles (tile.stream_k_unit).
  Value loSteps, hiSteps, slot, first, units;
  if (stream) {
    auto unit = StreamKUnitOp::create(
        b, loc, GridExprAttr::call(GridOp::CDiv, k.extent,
                                   GridExprAttr::literal(ctx, k.step)));
    loSteps = unit.getLo();
    hiSteps = unit.getHi();
    slot = unit.getSlot();
    first = unit.getFirst();
    units = unit.getUnits();
  } else {
    Value z = ProgramIdOp::create(b, loc, 2);
    units = cst(b, split.ways);
    Value steps = arith::CeilDivSIOp::create(b, loc, loop.getUpperBound(), bk);
    Value per = arith::CeilDivSIOp::create(b, loc, steps, units);
    loSteps = arith::MulIOp::create(b, loc, z, per);
    hiSteps = arith::AddIOp::create(b, loc, loSteps, per);
  }
  Value lo = arith::MulIOp::create(b, loc, loSteps, bk);
  Value hi = arith::MinSIOp::create(b, loc, loop.getUpperBound(),
                                    arith::MulIOp::create(b, loc, hiSteps, bk));
  loop.getLowerBoundMutable().assign(lo);
  loop.getUpperBoundMutable().assign(hi);

  // After the loop: the partials, the counts, the fix-up.
  b.setInsertionPointAfter(loop);
  Value acc = loop.getResult(0);
  Value nx = emitGridExpr(b, loc, func, grid.axis(0));
  Value ny = emitGridExpr(b, loc, func, grid.axis(1));
  Value tiles = arith::MulIOp::create(b, loc, nx, ny);
  if (!stream) {
    Value tile = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, ProgramIdOp::create(b, loc, 0), ny),
        ProgramIdOp::create(b, loc, 1));
    first = arith::MulIOp::create(b, loc, tile, units);
    slot = arith::AddIOp::create(b, loc, first,
                                 ProgramIdOp::create(b, loc, 2));
  }
  int64_t maxUnits = stream ? split.streamK : split.ways;
  // Slots: `maxUnits` a tile (split-K's tiles * ways; stream-K's at most
  // stream_k a tile); counters 4 a slot. The size of the views only, the
  // launch's are the kernel's tile.workspace and tile.semaphores.
  Value slots = arith::MulIOp::create(b, loc, tiles, cst(b, maxUnits));
  auto dyn = ShapedType::kDynamic;
  auto partialsType = TensorViewType::get(ctx, {dyn, dyn}, elem, {dyn, 1});
  Value zero64 = arith::ConstantIntOp::create(b, loc, i64, 0);
  // The workspace holds whole partial tiles, 256-byte aligned: every access
  // is in bounds.
  Value partials = WorkspaceOp::create(
      b, loc, partialsType, /*semaphores=*/false,
      ValueRange{arith::MulIOp::create(b, loc, slots, cst(b, rows)),
                 cst(b, cols)},
      zero64);
  auto countersType = TensorViewType::get(ctx, {dyn}, i32, {1});
  Value counters = WorkspaceOp::create(
      b, loc, countersType, /*semaphores=*/true,
      ValueRange{arith::MulIOp::create(b, loc, slots, cst(b, 4))}, zero64);
  auto one = RankedTensorType::get({1}, i32);
  auto splat = [&](OpBuilder &ob, int32_t v) {
    return arith::ConstantOp::create(
        ob, loc, DenseElementsAttr::get(one, ob.getI32IntegerAttr(v)));
  };
  auto add = [&](OpBuilder &ob, Value x, Value y) -> Value {
    return arith::AddIOp::create(ob, loc, x, y);
  };
  auto mul = [&](OpBuilder &ob, Value x, Value y) -> Value {
    return arith::MulIOp::create(ob, loc, x, y);
  };
  auto cmp = [&](OpBuilder &ob, arith::CmpIPredicate pred, Value x,
                 Value y) -> Value {
    return arith::CmpIOp::create(ob, loc, pred, x, y);
  };
  using Pred = arith::CmpIPredicate;
  // The units of a tile sum their partials as a binary tree: at level l
  // node n (unit z at level 0; node n at level l + 1 holds the sum of
  // nodes 2n and 2n + 1 of level l) pairs with n ^ 1. Both write their
  // sums, node n's into the slot of its subtree's first unit (whose
  // partial its writer has read), and count themselves in the pair's
  // counter (4 first + l units + n / 2); the second to arrive resets the
  // counter, adds the other's sum (a + b is b + a: the sum does not depend
  // on the arrival order) and goes on, the first stops. A node without a
  // pair goes on as it is. The unit left at the top runs the epilogue:
  // with S units, each reads at most log2(S) partials, not S.
  auto tree = [&](OpBuilder &ob, Value active) -> std::pair<Value, Value> {
    int64_t levels = llvm::Log2_64_Ceil(maxUnits);
    Value z = arith::SubIOp::create(ob, loc, slot, first);
    auto loopOp = scf::ForOp::create(
        ob, loc, cst(ob, 0), cst(ob, levels), cst(ob, 1),
        ValueRange{acc, z, units, active},
        [&](OpBuilder &lb, Location, Value l, ValueRange carried) {
          Value sum = carried[0], node = carried[1], width = carried[2],
                go = carried[3];
          Value partner = arith::XOrIOp::create(lb, loc, node, cst(lb, 1));
          Value paired = arith::AndIOp::create(
              lb, loc, go, cmp(lb, Pred::ult, partner, width));
          auto slotOf = [&](OpBuilder &ib, Value n) {
            Value unit = arith::ShLIOp::create(ib, loc, n, l);
            return mul(ib, add(ib, first, unit), cst(ib, rows));
          };
          auto pairIf = scf::IfOp::create(lb, loc,
                                          TypeRange{accType, lb.getI1Type()},
                                          paired, /*withElseRegion=*/true);
          {
            OpBuilder tb = OpBuilder::atBlockBegin(pairIf.thenBlock());
            StoreOp::create(tb, loc, sum, partials,
                            ValueRange{slotOf(tb, node), cst(tb, 0)}, Value(),
                            /*in_bounds=*/true, AtomicKindAttr());
            Value counter = add(
                tb,
                add(tb, mul(tb, first, cst(tb, 4)), mul(tb, l, units)),
                arith::ShRUIOp::create(tb, loc, node, cst(tb, 1)));
            // acq_rel: the sum is written before the count (release), and
            // the second reads the first's after it (acquire).
            Value old = AtomicRMWOp::create(
                tb, loc, one, AtomicKind::Add, splat(tb, 1), counters,
                ValueRange{SplatOp::create(tb, loc, one, counter)}, Value());
            Value second = cmp(
                tb, Pred::eq,
                ReduceOp::create(tb, loc, i32, ReduceKind::Sum, old, 0),
                cst(tb, 1));
            auto secondIf = scf::IfOp::create(tb, loc, TypeRange{accType},
                                              second, /*withElseRegion=*/true);
            OpBuilder sb = OpBuilder::atBlockBegin(secondIf.thenBlock());
            StoreOp::create(sb, loc, splat(sb, 0), counters,
                            ValueRange{counter}, Value(), /*in_bounds=*/true,
                            AtomicKindAttr());
            Value other = LoadOp::create(
                sb, loc, accType, partials,
                ValueRange{slotOf(sb, partner), cst(sb, 0)}, Value(),
                TypedAttr(), /*in_bounds=*/true);
            scf::YieldOp::create(
                sb, loc,
                isa<FloatType>(elem)
                    ? Value(arith::AddFOp::create(sb, loc, sum, other))
                    : Value(arith::AddIOp::create(sb, loc, sum, other)));
            OpBuilder fb = OpBuilder::atBlockBegin(secondIf.elseBlock());
            scf::YieldOp::create(fb, loc, sum);
            scf::YieldOp::create(tb, loc,
                                 ValueRange{secondIf.getResult(0), second});
          }
          {
            OpBuilder eb = OpBuilder::atBlockBegin(pairIf.elseBlock());
            scf::YieldOp::create(eb, loc, ValueRange{sum, go});
          }
          Value up = arith::ShRUIOp::create(lb, loc, node, cst(lb, 1));
          Value upWidth = arith::ShRUIOp::create(lb, loc, add(lb, width, cst(lb, 1)),
                                                 cst(lb, 1));
          scf::YieldOp::create(lb, loc,
                               ValueRange{pairIf.getResult(0), up, upWidth,
                                          pairIf.getResult(1)});
        });
    return {loopOp.getResult(0), loopOp.getResult(3)};
  };
  Value active = arith::ConstantIntOp::create(b, loc, 1, 1);
  auto cluster = func->getAttrOfType<IntegerAttr>(kClusterAttr);
  if (!stream && cluster && cluster.getInt() > 1) {
    // A program of a cluster past the matrix's last row of tiles (a
    // cluster walks whole clusters of rows: an odd number of rows leaves
    // one) runs the K loop for its partner's multicast copies but has no
    // tile: no partial, no count (its slot would lie past the ends of the
    // workspace and the semaphores), no epilogue.
    auto below = [&](int axis, Value extent) {
      return cmp(b, Pred::ult, ProgramIdOp::create(b, loc, axis), extent);
    };
    active = arith::AndIOp::create(b, loc, below(0, nx), below(1, ny));
  }
  auto [total, ready] = tree(b, active);
  auto fixup = scf::IfOp::create(b, loc, ready, /*withElseRegion=*/false);
  // Move the epilogue in; the ends of profiled scopes opened before it
  // (around the loop) stay after the fix-up, where their begins are.
  Block *then = fixup.thenBlock();
  int depth = 0;
  for (Operation &op : llvm::make_early_inc_range(
           llvm::make_range(std::next(Block::iterator(fixup)),
                            Block::iterator(ret)))) {
    if (isa<ProfileBeginOp>(op)) {
      ++depth;
    } else if (isa<ProfileEndOp>(op)) {
      if (depth == 0)
        continue;
      --depth;
    }
    op.moveBefore(then->getTerminator());
  }
  acc.replaceUsesWithIf(total, [&](OpOperand &use) {
    return fixup->isProperAncestor(use.getOwner());
  });
  GridExprAttr gridTiles =
      GridExprAttr::call(GridOp::Mul, grid.axis(0), grid.axis(1));
  auto lit = [&](int64_t v) { return GridExprAttr::literal(ctx, v); };
  auto call = GridExprAttr::call;
  int64_t tileBytes = rows * cols * 4;
  if (stream) {
    // The schedule cuts fewer tiles than the programs (at most the SMs)
    // into at most 2 units a program: at most 2 * sms slots, a partial and
    // 4 counters each.
    GridExprAttr sms = GridExprAttr::sms(ctx);
    func->setAttr(kStreamKAttr, IntegerAttr::get(IntegerType::get(ctx, 64),
                                                 split.streamK));
    GridExprAttr slotCount =
        call(GridOp::Min, call(GridOp::Mul, lit(2), sms),
             call(GridOp::Mul, gridTiles, lit(split.streamK)));
    func->setAttr(kWorkspaceAttr,
                  call(GridOp::Mul, slotCount, lit(tileBytes)));
    func->setAttr(kSemaphoresAttr, call(GridOp::Mul, slotCount, lit(16)));
  } else {
    // The grid's z axis counts the units of a tile.
    auto axes = llvm::to_vector(grid.getAxes());
    axes.resize(3, lit(1));
    axes[2] = lit(split.ways);
    func->setAttr(kGridAttr, GridAttr::get(ctx, axes));
    func->setAttr(kWorkspaceAttr,
                  call(GridOp::Mul, gridTiles, lit(split.ways * tileBytes)));
    func->setAttr(kSemaphoresAttr,
                  call(GridOp::Mul, gridTiles, lit(split.ways * 16)));
  }
  if (failed(verifyTrial(func, "the split program", why)))
    return failure();
  return success();
}
