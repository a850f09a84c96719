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

/// Rewrites `func` to compute an output tile in units along K: unit s of
/// n (n is `split.ways`, or for stream-K `num_programs z`) runs K steps
/// [s * per, (s + 1) * per) (per = cdiv(cdiv(K, BK), n)). A
/// tile of n > 1 units: each writes its f32 (i32) partial tile to the
/// workspace and counts itself in the tile's counter; the last to arrive
/// sums the partials in the order 0..n-1 (the result does not depend on the
/// arrival order), puts the counter back to 0 for the next launch and runs
/// the epilogue. Split-K: unit z of tile t has partial t n + z and counter
/// t. Stream-K: z is the unit's index among the launch's split units (the
/// schedule splits only the last wave's tiles, into consecutive units), its
/// partial z and its tile's counter z / n, so that the workspace holds one
/// wave's partials. Workspace: the partials (row-major tiles);
/// semaphores: an i32 counter a tile.
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
  // The unit's K range. Split-K: unit z of the tile. Stream-K: z is the
  // unit's index among the launch's split units, those of a tile
  // consecutive (z - z mod n ... its first); 0 for a whole tile.
  Value z = ProgramIdOp::create(b, loc, 2);
  Value units = stream ? Value(NumProgramsOp::create(b, loc, 2))
                       : Value(cst(b, split.ways));
  Value unit = stream ? Value(arith::RemUIOp::create(b, loc, z, units)) : z;
  Value bk = cst(b, k.step);
  Value steps = arith::CeilDivSIOp::create(b, loc, loop.getUpperBound(), bk);
  Value per = arith::MulIOp::create(
      b, loc, arith::CeilDivSIOp::create(b, loc, steps, units), bk);
  Value lo = arith::MulIOp::create(b, loc, unit, per);
  Value hi = arith::MinSIOp::create(b, loc, loop.getUpperBound(),
                                    arith::AddIOp::create(b, loc, lo, per));
  loop.getLowerBoundMutable().assign(lo);
  loop.getUpperBoundMutable().assign(hi);

  // After the loop: the partial, the count, the fix-up.
  b.setInsertionPointAfter(loop);
  Value acc = loop.getResult(0);
  Value nx = emitGridExpr(b, loc, func, grid.axis(0));
  Value ny = emitGridExpr(b, loc, func, grid.axis(1));
  Value tiles = arith::MulIOp::create(b, loc, nx, ny);
  // The tile's counter, and the workspace row (in tiles) of its unit 0.
  Value slot =
      stream ? Value(arith::DivUIOp::create(b, loc, z, units))
             : Value(arith::AddIOp::create(
                   b, loc,
                   arith::MulIOp::create(b, loc, ProgramIdOp::create(b, loc, 0),
                                         ny),
                   ProgramIdOp::create(b, loc, 1)));
  Value first = arith::MulIOp::create(b, loc, slot, units);
  auto dyn = ShapedType::kDynamic;
  auto partialsType = TensorViewType::get(ctx, {dyn, dyn}, elem, {dyn, 1});
  Value zero64 = arith::ConstantIntOp::create(b, loc, i64, 0);
  // The workspace holds whole partial tiles, 256-byte aligned: every access
  // is in bounds.
  Value partials = WorkspaceOp::create(
      b, loc, partialsType, /*semaphores=*/false,
      ValueRange{arith::MulIOp::create(
                     b, loc, arith::MulIOp::create(b, loc, tiles, units),
                     cst(b, rows)),
                 cst(b, cols)},
      zero64);
  auto countersType = TensorViewType::get(ctx, {dyn}, i32, {1});
  Value counters = WorkspaceOp::create(b, loc, countersType,
                                       /*semaphores=*/true, ValueRange{tiles},
                                       zero64);
  auto rowOf = [&](OpBuilder &ob, Value u) {
    return arith::MulIOp::create(ob, loc, u, cst(ob, rows));
  };
  auto one = RankedTensorType::get({1}, i32);
  auto splat = [&](OpBuilder &ob, int32_t v) {
    return arith::ConstantOp::create(
        ob, loc, DenseElementsAttr::get(one, ob.getI32IntegerAttr(v)));
  };
  // Writes the partial and counts it; whether this unit came last.
  auto countIn = [&](OpBuilder &ob) -> Value {
    StoreOp::create(ob, loc, acc, partials,
                    ValueRange{rowOf(ob, arith::AddIOp::create(ob, loc, first,
                                                               unit)),
                               cst(ob, 0)},
                    Value(), /*in_bounds=*/true, AtomicKindAttr());
    // acq_rel: the partial is written before the count (release), and the
    // last unit reads the others' partials after it (acquire).
    Value old = AtomicRMWOp::create(
        ob, loc, one, AtomicKind::Add, splat(ob, 1), counters,
        ValueRange{SplatOp::create(ob, loc, one, slot)}, Value());
    Value arrived = ReduceOp::create(ob, loc, i32, ReduceKind::Sum, old, 0);
    return arith::CmpIOp::create(
        ob, loc, arith::CmpIPredicate::eq, arrived,
        arith::SubIOp::create(ob, loc, units, cst(ob, 1)));
  };
  // The last unit: resets the counter and sums the partials in order.
  auto sumPartials = [&](OpBuilder &ob) -> Value {
    StoreOp::create(ob, loc, splat(ob, 0), counters, ValueRange{slot}, Value(),
                    /*in_bounds=*/true, AtomicKindAttr());
    auto load = [&](OpBuilder &lb, Value u) {
      return LoadOp::create(lb, loc, accType, partials,
                            ValueRange{rowOf(lb, u), cst(lb, 0)}, Value(),
                            TypedAttr(), /*in_bounds=*/true);
    };
    // One partial at a time: the sum and one partial are live (a tile of
    // 128 registers a thread fits twice).
    auto sum = scf::ForOp::create(
        ob, loc, cst(ob, 1), units, cst(ob, 1), ValueRange{load(ob, first)},
        [&](OpBuilder &lb, Location, Value j, ValueRange carried) {
          Value part = load(lb, arith::AddIOp::create(lb, loc, first, j));
          Value next =
              isa<FloatType>(elem)
                  ? Value(arith::AddFOp::create(lb, loc, carried[0], part))
                  : Value(arith::AddIOp::create(lb, loc, carried[0], part));
          scf::YieldOp::create(lb, loc, next);
        });
    return sum.getResult(0);
  };
  // countIn where `cond` holds, else `otherwise` (whether to run the
  // epilogue).
  auto countIf = [&](Value cond, bool otherwise) -> Value {
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{b.getI1Type()}, cond,
                                  /*withElseRegion=*/true);
    OpBuilder tb = OpBuilder::atBlockBegin(ifOp.thenBlock());
    scf::YieldOp::create(tb, loc, countIn(tb));
    OpBuilder eb = OpBuilder::atBlockBegin(ifOp.elseBlock());
    scf::YieldOp::create(
        eb, loc,
        ValueRange{arith::ConstantIntOp::create(eb, loc, otherwise, 1)});
    return ifOp.getResult(0);
  };
  Value isSplit, ready;
  auto cluster = func->getAttrOfType<IntegerAttr>(kClusterAttr);
  if (stream) {
    // Stream-K: a tile the schedule did not split runs its epilogue at
    // once.
    isSplit = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, units,
                                    cst(b, 1));
    ready = countIf(isSplit, true);
  } else if (cluster && cluster.getInt() > 1) {
    // A program of a cluster past the matrix's last row of tiles (a
    // cluster walks whole clusters of rows: an odd number of rows leaves
    // one) runs the K loop for its partner's multicast copies but has no
    // tile: no partial, no count (its slot would lie past the ends of the
    // workspace and the semaphores), no epilogue.
    auto below = [&](int axis, Value extent) {
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                   ProgramIdOp::create(b, loc, axis), extent);
    };
    Value inX = below(0, nx), inY = below(1, ny);
    ready = countIf(arith::AndIOp::create(b, loc, inX, inY), false);
  } else {
    ready = countIn(b);
  }
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
  OpBuilder tb = OpBuilder::atBlockBegin(then);
  Value total;
  Operation *keep = nullptr; // the op that still reads the unit's own tile
  if (stream) {
    auto ifOp = scf::IfOp::create(tb, loc, TypeRange{accType}, isSplit,
                                  /*withElseRegion=*/true);
    OpBuilder sb = OpBuilder::atBlockBegin(ifOp.thenBlock());
    scf::YieldOp::create(sb, loc, sumPartials(sb));
    OpBuilder eb = OpBuilder::atBlockBegin(ifOp.elseBlock());
    scf::YieldOp::create(eb, loc, acc);
    total = ifOp.getResult(0);
    keep = ifOp;
  } else {
    total = sumPartials(tb);
  }
  acc.replaceUsesWithIf(total, [&](OpOperand &use) {
    return fixup->isProperAncestor(use.getOwner()) &&
           !(keep && keep->isAncestor(use.getOwner()));
  });
  GridExprAttr gridTiles =
      GridExprAttr::call(GridOp::Mul, grid.axis(0), grid.axis(1));
  auto lit = [&](int64_t v) { return GridExprAttr::literal(ctx, v); };
  auto call = GridExprAttr::call;
  int64_t tileBytes = rows * cols * 4;
  if (stream) {
    // The schedule splits fewer tiles than the programs (at most the SMs),
    // into at most 2 units a program: 2 * sms partials, 1 counter a program.
    GridExprAttr sms = GridExprAttr::sms(ctx);
    func->setAttr(kStreamKAttr, IntegerAttr::get(IntegerType::get(ctx, 64),
                                                 split.streamK));
    func->setAttr(
        kWorkspaceAttr,
        call(GridOp::Mul,
             call(GridOp::Min, call(GridOp::Mul, lit(2), sms),
                  call(GridOp::Mul, gridTiles, lit(split.streamK))),
             lit(tileBytes)));
    func->setAttr(kSemaphoresAttr,
                  call(GridOp::Mul, call(GridOp::Min, sms, gridTiles), lit(4)));
  } else {
    // The grid's z axis counts the units of a tile.
    auto axes = llvm::to_vector(grid.getAxes());
    axes.resize(3, lit(1));
    axes[2] = lit(split.ways);
    func->setAttr(kGridAttr, GridAttr::get(ctx, axes));
    func->setAttr(kWorkspaceAttr,
                  call(GridOp::Mul, gridTiles, lit(split.ways * tileBytes)));
    func->setAttr(kSemaphoresAttr, call(GridOp::Mul, gridTiles, lit(4)));
  }
  if (failed(verifyTrial(func, "the split program", why)))
    return failure();
  return success();
}
