//===- TileShapeVariantsColumns.cpp - a tile as two column blocks ---------===//
//
// tile-shape-variants' members whose width is not a power of two (128x192:
// the tile shapes the layouts express are powers of two). The program,
// re-tiled to the first block's width (128), gets a copy of every op that
// makes or reads a tile along the output's columns, at the second block's
// width (64), placed that many columns further: a second accumulator
// carried beside the first, a second dot sharing A, a second load of B's
// columns, of the bias, a second store. Program ids place tiles of the sum
// of the widths (192), and the grid counts them.
//
//===----------------------------------------------------------------------===//

#include "ShapeVariants.h"

#include "tilec/Dialect/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;
using namespace tilec::shape_variants;

namespace {

class ColumnSplit {
public:
  ColumnSplit(func::FuncOp func, Plan &plan, int64_t first, int64_t second)
      : func(func), plan(plan), first(first), second(second) {}

  /// Whether the program can be split (before any change), or why not.
  bool check(std::string &why) {
    WalkResult r = func.walk([&](Operation *op) {
      if (auto red = dyn_cast<ReduceOp>(op))
        if (along(red.getSrc(), red.getDim())) {
          why = "a reduction runs along the output's columns";
          return WalkResult::interrupt();
        }
      if (auto dot = dyn_cast<DotOp>(op))
        if (along(dot.getA(), 1)) {
          why = "a dot contracts over the output's columns";
          return WalkResult::interrupt();
        }
      bool touches = llvm::any_of(
          llvm::concat<Value>(op->getOperands(), op->getResults()),
          [&](Value v) { return wide(v); });
      if (op->getNumRegions() && !isa<scf::ForOp, scf::IfOp>(op) && touches) {
        why = "'" + op->getName().getStringRef().str() +
              "' carries tiles along the output's columns";
        return WalkResult::interrupt();
      }
      // (A view has one TMA box: tiles of one view whose rows run along
      // the columns (B given N x K) share the second block's row count,
      // boxes of rows filling the first's; a store's box spans its tile,
      // so stored columns must be the innermost dim, and so must those of
      // views of more dims.)
      if (isa<LoadOp, StoreOp>(op)) {
        Value tile = accessTile(op);
        unsigned rank = DimClasses::rank(tile);
        for (unsigned d = 0; d + 1 < rank; ++d)
          if (along(tile, d) && (isa<StoreOp>(op) || d + 2 != rank)) {
            why = "a view's outer dim runs along the output's columns: the "
                  "two blocks' copies would need TMA boxes of two shapes";
            return WalkResult::interrupt();
          }
      }
      if (auto ifOp = dyn_cast<scf::IfOp>(op))
        if (llvm::any_of(ifOp.getResults(),
                         [&](Value v) { return wide(v); })) {
          why = "an scf.if yields tiles along the output's columns";
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      return false;
    // The second block's types and the accesses' column offsets, while the
    // values are those the classes know.
    func.walk([&](Operation *op) {
      for (Value v : op->getResults())
        note(v);
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument a : block.getArguments())
            note(a);
      if (isa<LoadOp, StoreOp>(op)) {
        Value tile = accessTile(op);
        for (unsigned d = 0; d < DimClasses::rank(tile); ++d)
          if (along(tile, d))
            columnOffsets[op].push_back(d);
      }
    });
    return true;
  }

  /// Splits the program (re-tiled to `first` columns): the second block's
  /// ops, the placement at `first + second` columns.
  void run() {
    MLIRContext *ctx = func.getContext();
    int64_t width = first + second;
    for (arith::MulIOp mul : plan.cols.offsets) {
      OpBuilder b(mul);
      OpOperand &k = mul.getLhs().getDefiningOp<ProgramIdOp>()
                         ? mul.getRhsMutable()
                         : mul.getLhsMutable();
      k.set(arith::ConstantOp::create(b, mul.getLoc(),
                                      b.getI32IntegerAttr(width)));
      b.setInsertionPointAfter(mul);
      Value c = arith::ConstantOp::create(b, mul.getLoc(),
                                          b.getI32IntegerAttr(first));
      shifted[mul.getResult()] =
          arith::AddIOp::create(b, mul.getLoc(), mul.getResult(), c);
    }
    auto grid =
        llvm::to_vector(func->getAttrOfType<GridAttr>(kGridAttr).getAxes());
    grid[plan.cols.axis] = GridExprAttr::call(
        GridOp::CDiv, plan.cols.extent, GridExprAttr::literal(ctx, width));
    func->setAttr(kGridAttr, GridAttr::get(ctx, grid));
    copyBlock(func.getBody().front());
  }

private:
  /// Whether dim `d` of the tile `v` runs along the output's columns (the
  /// analysis' classes: ask before the program changes).
  bool along(Value v, unsigned d) {
    return plan.classes.find(v, d) == plan.cols.cls;
  }

  /// Whether `v` is a tile with a dim along the columns.
  bool wide(Value v) {
    for (unsigned d = 0; d < DimClasses::rank(v); ++d)
      if (along(v, d))
        return true;
    return false;
  }

  /// Records the second block's type of `v` where it is a column tile.
  void note(Value v) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || !wide(v))
      return;
    SmallVector<int64_t> shape(t.getShape());
    for (unsigned d = 0; d < shape.size(); ++d)
      if (along(v, d))
        shape[d] = second;
    secondType[v] = t.clone(shape);
  }

  bool touches(Operation &op) {
    return llvm::any_of(
        llvm::concat<Value>(op.getOperands(), op.getResults()),
        [&](Value v) { return secondType.count(v); });
  }

  /// The second block's copies of `block`'s ops, each after its original.
  void copyBlock(Block &block) {
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        copyLoop(loop);
        continue;
      }
      if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
        for (Region &r : ifOp->getRegions())
          if (!r.empty())
            copyBlock(r.front());
        continue;
      }
      if (op.hasTrait<OpTrait::IsTerminator>() || !touches(op))
        continue;
      OpBuilder b(&op);
      b.setInsertionPointAfter(&op);
      Operation *copy = b.clone(op, mapping);
      for (auto [orig, res] : llvm::zip(op.getResults(), copy->getResults()))
        if (auto it = secondType.find(orig); it != secondType.end())
          res.setType(it->second);
      if (auto c = dyn_cast<arith::ConstantOp>(copy))
        if (auto dense = dyn_cast<DenseElementsAttr>(c.getValue()))
          c.setValueAttr(DenseElementsAttr::get(
              cast<ShapedType>(c.getType()), dense.getSplatValue<Attribute>()));
      if (auto it = columnOffsets.find(&op); it != columnOffsets.end())
        for (unsigned d : it->second) {
          // (Every column offset is one of the placing products: the
          // analysis checked.)
          OpOperand &off = accessOffsets(copy)[d];
          off.set(shifted.lookup(off.get()));
        }
    }
  }

  /// A loop carrying column tiles carries the second block's beside them
  /// (after the loop's own iter_args), its body copied as a block is.
  void copyLoop(scf::ForOp loop) {
    SmallVector<unsigned> carried;
    for (auto [i, arg] : llvm::enumerate(loop.getRegionIterArgs()))
      if (secondType.count(arg))
        carried.push_back(i);
    if (carried.empty()) {
      copyBlock(*loop.getBody());
      return;
    }
    SmallVector<Value> inits(loop.getInitArgs());
    for (unsigned i : carried)
      inits.push_back(mapping.lookupOrDefault(loop.getInitArgs()[i]));
    // (The body moves to the new loop: its arguments, taken first.)
    SmallVector<BlockArgument> args(loop.getRegionIterArgs());
    OpBuilder b(loop);
    auto wider = scf::ForOp::create(b, loop.getLoc(), loop.getLowerBound(),
                                    loop.getUpperBound(), loop.getStep(),
                                    inits);
    wider->setDiscardableAttrs(loop->getDiscardableAttrDictionary());
    Block *body = loop.getBody();
    wider.getRegion().getBlocks().clear();
    wider.getRegion().getBlocks().splice(wider.getRegion().end(),
                                         loop.getRegion().getBlocks());
    for (unsigned i : carried) {
      BlockArgument orig = args[i];
      BlockArgument arg =
          body->addArgument(secondType.lookup(orig), orig.getLoc());
      mapping.map(orig, arg);
    }
    copyBlock(*body);
    auto yield = cast<scf::YieldOp>(body->getTerminator());
    SmallVector<Value> yielded(yield.getOperands());
    for (unsigned i : carried)
      yielded.push_back(mapping.lookupOrDefault(yield.getOperands()[i]));
    yield->setOperands(yielded);
    unsigned n = loop.getNumResults();
    for (auto [j, i] : llvm::enumerate(carried)) {
      Value orig = loop.getResult(i);
      Value res = wider.getResult(n + j);
      secondType[wider.getResult(i)] = secondType.lookup(orig);
      mapping.map(wider.getResult(i), res);
    }
    loop->replaceAllUsesWith(wider->getResults().take_front(n));
    loop.erase();
  }

  func::FuncOp func;
  Plan &plan;
  int64_t first, second;
  IRMapping mapping; // a value of the first block -> its second block's
  llvm::DenseMap<Value, Type> secondType;
  llvm::DenseMap<Operation *, SmallVector<unsigned>> columnOffsets;
  llvm::DenseMap<Value, Value> shifted; // program_id * width -> + first
};

} // namespace

LogicalResult shape_variants::splitColumns(func::FuncOp func, Plan &plan,
                                           int64_t first, int64_t second,
                                           std::string &why,
                                           llvm::function_ref<LogicalResult()>
                                               retileFirst) {
  ColumnSplit split(func, plan, first, second);
  if (!split.check(why) || failed(retileFirst()))
    return failure();
  split.run();
  return verifyTrial(func, "the program split by columns", why);
}
