//===- TileShapeVariants.cpp - a kernel at other output tile shapes -------===//
//
// The tile-shape-variants pass. A GEMM-like kernel is written at one output
// tile shape: its main loop's dot makes a BM x BN tile, program ids place it
// (m0 = program_id x * BM, n0 = program_id y * BN) and the grid counts the
// tiles (cdiv(M, BM), cdiv(N, BN)). Which shape is fastest depends on the
// problem: 128x256 tiles feed the tensor cores best, but at M = N = 1024 they
// make 32 tiles for 132 SMs. This pass compiles the program at other shapes
// and gives each a cost the runtime evaluates for the actual extents.
//
// Which tile dims follow the output's rows and columns is found by unifying
// dims that must be equal (elementwise operands, a dot's M/N/K, broadcasts
// of non-unit dims, transposes, expand_dims, reductions, loop-carried
// values) into classes. Re-tiling a class changes every type in it; it is
// allowed only when
//   - every load/store offset along the class is program_id(a) * BM, with
//     the program id and the product used for nothing else,
//   - grid axis a is cdiv(E, BM),
//   - no reshape, non-splat constant or op this pass does not know touches
//     the class, and no other integer constant equal to BM (which might be
//     the tile size in disguise) is used,
// so that the rewritten program computes the same thing tile by tile.
//
//===----------------------------------------------------------------------===//

#include "ShapeVariants.h"

#include "tilec/Dialect/Tile/TargetInfo.h"
#include "tilec/Dialect/Tile/TileDialect.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace tilec {
#define GEN_PASS_DEF_TILESHAPEVARIANTS
#include "tilec/Dialect/Tile/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;
using namespace tilec::shape_variants;

namespace {

/// A load or store with a mask (the mask's tile would need the new shape
/// too).
bool hasMask(Operation *op) {
  if (auto l = dyn_cast<LoadOp>(op))
    return bool(l.getMask());
  if (auto st = dyn_cast<StoreOp>(op))
    return bool(st.getMask());
  return false;
}

} // namespace

DotOp shape_variants::mainDot(func::FuncOp func) {
  for (auto loop : func.getBody().getOps<scf::ForOp>())
    for (auto dot : loop.getBody()->getOps<DotOp>())
      for (OpOperand &use : dot->getUses())
        if (isa<scf::YieldOp>(use.getOwner()))
          return dot;
  return {};
}

namespace {

/// E of a grid expression `cdiv(E, size)`.
GridExprAttr cdivExtent(GridExprAttr e, int64_t size) {
  if (e.getOp() != GridOp::CDiv || !e.rhs().isLiteral(size))
    return {};
  return e.lhs();
}

class Analysis {
public:
  explicit Analysis(func::FuncOp func) : func(func) {}

  /// The plan, or nothing with `why` set.
  std::optional<Plan> run(std::string &why) {
    DotOp dot = mainDot(func);
    if (!dot) {
      why = "the kernel has no main loop carrying a tile.dot";
      return std::nullopt;
    }
    Plan plan;
    DimClasses &cl = plan.classes;
    SmallVector<Value> pinned;
    bool ok = true;
    func.walk([&](Operation *op) {
      for (Value r : op->getResults())
        if (isa<RankedTensorType>(r.getType()))
          plan.tiles.push_back(r);
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument a : block.getArguments())
            if (isa<RankedTensorType>(a.getType()))
              plan.tiles.push_back(a);
      if (!unify(op, cl, pinned)) {
        why = "'" + op->getName().getStringRef().str() +
              "' depends on the grid";
        ok = false;
      }
    });
    if (!ok)
      return std::nullopt;

    auto result = dot.getResult();
    auto shape = cast<RankedTensorType>(result.getType()).getShape();
    plan.rows = {cl.find(result, 0), shape[0]};
    plan.cols = {cl.find(result, 1), shape[1]};
    if (plan.rows.cls == plan.cols.cls) {
      why = "the output's rows and columns are tied";
      return std::nullopt;
    }
    for (Value v : pinned)
      for (unsigned d = 0; d < DimClasses::rank(v); ++d) {
        int c = cl.find(v, d);
        if (c == plan.rows.cls || c == plan.cols.cls) {
          why = "'" + v.getDefiningOp()->getName().getStringRef().str() +
                "' needs the tile shape as written";
          return std::nullopt;
        }
      }
    if (!placedByProgramIds(plan, why) || !matchGrid(plan.rows, why) ||
        !matchGrid(plan.cols, why))
      return std::nullopt;
    return plan;
  }

private:
  /// Adds `op`'s equalities; values it needs as written go to `pinned`.
  /// False for ops whose meaning depends on the grid.
  bool unify(Operation *op, DimClasses &cl, SmallVector<Value> &pinned) {
    if (isa<NumProgramsOp>(op))
      return false;
    if (auto dot = dyn_cast<DotOp>(op)) {
      cl.unite(dot.getA(), 0, dot.getResult(), 0);
      cl.unite(dot.getA(), 1, dot.getB(), 0);
      cl.unite(dot.getB(), 1, dot.getResult(), 1);
      cl.uniteAll(dot.getAcc(), dot.getResult());
    } else if (auto b = dyn_cast<BroadcastOp>(op)) {
      auto src = cast<RankedTensorType>(b.getSrc().getType()).getShape();
      auto res = cast<RankedTensorType>(b.getType()).getShape();
      for (unsigned d = 0; d < src.size(); ++d)
        if (src[d] == res[d])
          cl.unite(b.getSrc(), d, b.getResult(), d);
    } else if (auto e = dyn_cast<ExpandDimsOp>(op)) {
      unsigned axis = e.getAxis();
      for (unsigned d = 0; d < DimClasses::rank(e.getSrc()); ++d)
        cl.unite(e.getSrc(), d, e.getResult(), d < axis ? d : d + 1);
    } else if (auto r = dyn_cast<ReduceOp>(op)) {
      unsigned dim = r.getDim();
      if (isa<RankedTensorType>(r.getType()))
        for (unsigned d = 0; d < DimClasses::rank(r.getSrc()); ++d)
          if (d != dim)
            cl.unite(r.getSrc(), d, r.getResult(), d < dim ? d : d - 1);
    } else if (auto t = dyn_cast<TransposeOp>(op)) {
      for (auto [d, p] : llvm::enumerate(t.getPermutation()))
        cl.unite(t.getResult(), d, t.getSrc(), p);
    } else if (auto c = dyn_cast<ConvertLayoutOp>(op)) {
      cl.uniteAll(c.getSrc(), c.getResult());
    } else if (auto c = dyn_cast<arith::ConstantOp>(op)) {
      auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
      if (isa<RankedTensorType>(c.getType()) && (!dense || !dense.isSplat()))
        pinned.push_back(c.getResult());
    } else if (auto loop = dyn_cast<scf::ForOp>(op)) {
      for (auto [init, arg, res, yielded] :
           llvm::zip(loop.getInitArgs(), loop.getRegionIterArgs(),
                     loop.getResults(), loop.getYieldedValues())) {
        cl.uniteAll(init, arg);
        cl.uniteAll(arg, res);
        cl.uniteAll(yielded, res);
      }
    } else if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      for (Region *r : {&ifOp.getThenRegion(), &ifOp.getElseRegion()})
        if (!r->empty())
          for (auto [res, yielded] :
               llvm::zip(ifOp.getResults(),
                         r->front().getTerminator()->getOperands()))
            cl.uniteAll(yielded, res);
    } else if (isa<arith::ArithDialect, math::MathDialect>(op->getDialect())) {
      // Elementwise: every tile operand and result has one shape.
      Value first;
      for (Value v : llvm::concat<Value>(op->getOperands(), op->getResults()))
        if (isa<RankedTensorType>(v.getType())) {
          if (first)
            cl.uniteAll(first, v);
          else
            first = v;
        }
    } else if (!isa<LoadOp, StoreOp, SplatOp, IotaOp, ProgramIdOp, DimOp,
                    scf::YieldOp, func::ReturnOp>(op) ||
               hasMask(op)) {
      // Reshape, masked accesses, and anything this pass does not know:
      // keep as written.
      for (Value v : llvm::concat<Value>(op->getOperands(), op->getResults()))
        if (isa<RankedTensorType>(v.getType()))
          pinned.push_back(v);
    }
    return true;
  }

  /// The tiled dim a load/store's offset `d` runs along, if any.
  TiledDim *along(Plan &plan, Operation *access, unsigned d) {
    Value tile = accessTile(access);
    int c = plan.classes.find(tile, d);
    if (c == plan.rows.cls)
      return &plan.rows;
    if (c == plan.cols.cls)
      return &plan.cols;
    return nullptr;
  }

  static OperandRange offsetsOf(Operation *access) {
    return accessOffsets(access);
  }

  /// Every offset along the rows (columns) is program_id(a) * size, and
  /// those products and program ids are used only as such offsets.
  bool placedByProgramIds(Plan &plan, std::string &why) {
    WalkResult walk = func.walk([&](Operation *access) {
      if (!isa<LoadOp, StoreOp>(access))
        return WalkResult::advance();
      for (auto [d, off] : llvm::enumerate(offsetsOf(access))) {
        TiledDim *td = along(plan, access, d);
        if (!td)
          continue;
        auto mul = off.getDefiningOp<arith::MulIOp>();
        ProgramIdOp pid;
        if (mul) {
          Value a = mul.getLhs(), b = mul.getRhs();
          if (!a.getDefiningOp<ProgramIdOp>())
            std::swap(a, b);
          pid = a.getDefiningOp<ProgramIdOp>();
          if (pid && getConstantIntValue(b) != td->size)
            pid = {};
        }
        int axis = pid ? int(pid.getAxis()) : -1;
        if (!pid || (td->axis >= 0 && td->axis != axis)) {
          why = "an offset of '" +
                access->getName().getStringRef().str() +
                "' along the output tile is not program_id * " +
                std::to_string(td->size);
          return WalkResult::interrupt();
        }
        td->axis = axis;
        if (plan.products.insert(mul).second)
          td->offsets.push_back(mul);
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return false;
    for (TiledDim *td : {&plan.rows, &plan.cols})
      if (td->axis < 0) {
        why = "no load or store offset along the output tile";
        return false;
      }
    if (plan.rows.axis == plan.cols.axis) {
      why = "rows and columns are placed by the same program id";
      return false;
    }
    // The products and the program ids serve only those offsets.
    for (TiledDim *td : {&plan.rows, &plan.cols})
      for (arith::MulIOp mul : td->offsets)
        for (OpOperand &use : mul->getUses()) {
          Operation *user = use.getOwner();
          unsigned first = isa<LoadOp, StoreOp>(user)
                               ? offsetsOf(user).getBeginOperandIndex()
                               : 0;
          if (!isa<LoadOp, StoreOp>(user) ||
              use.getOperandNumber() < first ||
              along(plan, user, use.getOperandNumber() - first) != td) {
            why = "program_id * " + std::to_string(td->size) +
                  " is also used by '" + user->getName().getStringRef().str() +
                  "'";
            return false;
          }
        }
    bool ok = true;
    func.walk([&](ProgramIdOp pid) {
      for (Operation *user : pid->getUsers())
        if (!plan.products.contains(user)) {
          why = "a program id is also used by '" +
                user->getName().getStringRef().str() + "'";
          ok = false;
        }
    });
    return ok;
  }

  bool matchGrid(TiledDim &td, std::string &why) {
    auto grid = func->getAttrOfType<GridAttr>(kGridAttr);
    GridExprAttr e;
    if (td.axis < int(grid.getAxes().size()))
      e = cdivExtent(grid.getAxes()[td.axis], td.size);
    if (!e) {
      why = "grid axis " + std::to_string(td.axis) + " is not cdiv(E," +
            std::to_string(td.size) + ")";
      return false;
    }
    td.extent = e;
    return true;
  }

  func::FuncOp func;
};

} // namespace

bool shape_variants::otherConstantUses(func::FuncOp func, const Plan &plan,
                                       const TiledDim &td, std::string &why) {
  bool found = false;
  // The main loop's step is K's tile size, not the output's.
  DotOp dot = mainDot(func);
  Operation *kLoop = dot ? dot->getParentOp() : nullptr;
  func.walk([&](arith::ConstantOp c) {
    auto a = dyn_cast<IntegerAttr>(c.getValue());
    if (!a || a.getInt() != td.size)
      return;
    for (OpOperand &use : c->getUses()) {
      Operation *user = use.getOwner();
      auto loop = dyn_cast<scf::ForOp>(user);
      if (loop && loop == kLoop && &use == &loop.getStepMutable())
        continue;
      if (!plan.products.contains(user) && !found) {
        found = true;
        why = "the constant " + std::to_string(td.size) + " is also used by '" +
              user->getName().getStringRef().str() +
              "', which may depend on the tile size";
      }
    }
  });
  return found;
}

void shape_variants::retypeTiles(
    Plan &plan, llvm::function_ref<int64_t(int, int64_t)> newSize) {
  for (Value v : plan.tiles) {
    auto t = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> shape(t.getShape());
    for (unsigned d = 0; d < shape.size(); ++d)
      shape[d] = newSize(plan.classes.find(v, d), shape[d]);
    if (shape == t.getShape())
      continue;
    auto nt = t.clone(shape);
    if (auto c = v.getDefiningOp<arith::ConstantOp>())
      c.setValueAttr(DenseElementsAttr::get(
          nt, cast<DenseElementsAttr>(c.getValue()).getSplatValue<Attribute>()));
    v.setType(nt);
  }
}

namespace {

/// Re-tiles `func` (as analyzed in `plan`) to rows x cols.
LogicalResult retile(func::FuncOp func, Plan &plan, int64_t rows,
                     int64_t cols, std::string &why) {
  TiledDim *dims[2] = {&plan.rows, &plan.cols};
  int64_t sizes[2] = {rows, cols};
  for (int i = 0; i < 2; ++i)
    if (sizes[i] != dims[i]->size && otherConstantUses(func, plan, *dims[i], why))
      return failure();
  retypeTiles(plan, [&](int cls, int64_t size) {
    for (int i = 0; i < 2; ++i)
      if (cls == dims[i]->cls)
        return sizes[i];
    return size;
  });
  MLIRContext *ctx = func.getContext();
  auto grid =
      llvm::to_vector(func->getAttrOfType<GridAttr>(kGridAttr).getAxes());
  for (int i = 0; i < 2; ++i) {
    if (sizes[i] == dims[i]->size)
      continue;
    for (arith::MulIOp mul : dims[i]->offsets) {
      OpBuilder b(mul);
      Value c = arith::ConstantOp::create(b, mul.getLoc(),
                                          b.getI32IntegerAttr(sizes[i]));
      OpOperand &k = mul.getLhs().getDefiningOp<ProgramIdOp>()
                         ? mul.getRhsMutable()
                         : mul.getLhsMutable();
      k.set(c);
    }
    grid[dims[i]->axis] =
        GridExprAttr::call(GridOp::CDiv, dims[i]->extent,
                           GridExprAttr::literal(ctx, sizes[i]));
  }
  func->setAttr(kGridAttr, GridAttr::get(ctx, grid));
  if (failed(verifyTrial(func, "the re-tiled program", why)))
    return failure();
  return success();
}

/// `v` as a grid expression: a constant, an integer argument or the extent
/// of a view argument; null otherwise.
GridExprAttr gridExprOf(Value v) {
  MLIRContext *ctx = v.getContext();
  if (auto c = getConstantIntValue(v))
    return GridExprAttr::literal(ctx, *c);
  if (auto arg = dyn_cast<BlockArgument>(v))
    if (isa<func::FuncOp>(arg.getOwner()->getParentOp()) &&
        isa<IntegerType>(arg.getType()))
      return GridExprAttr::argOf(ctx, arg.getArgNumber());
  if (auto dim = v.getDefiningOp<DimOp>())
    if (auto arg = dyn_cast<BlockArgument>(dim.getTensor()))
      if (isa<func::FuncOp>(arg.getOwner()->getParentOp()))
        return GridExprAttr::dimOf(ctx, arg.getArgNumber(), dim.getDim());
  return {};
}

/// The kernel argument a dot operand is loaded from, through transposes,
/// and its rank; {-1, 0} otherwise.
std::pair<int64_t, int64_t> loadedArgument(Value v) {
  while (auto t = v.getDefiningOp<TransposeOp>())
    v = t.getSrc();
  auto load = v.getDefiningOp<LoadOp>();
  if (!load)
    return {-1, 0};
  auto arg = dyn_cast<BlockArgument>(load.getTensor());
  if (!arg || !isa<func::FuncOp>(arg.getOwner()->getParentOp()))
    return {-1, 0};
  return {arg.getArgNumber(),
          cast<TensorViewType>(arg.getType()).getRank()};
}

/// The main dot's loop, if it is a top-level `scf.for` from 0 by a constant
/// step to an extent the runtime can evaluate.
std::optional<KLoop> analyzeKLoop(func::FuncOp func) {
  DotOp dot = mainDot(func);
  if (!dot)
    return std::nullopt;
  auto loop = cast<scf::ForOp>(dot->getParentOp());
  KLoop k;
  k.loop = loop;
  auto lb = getConstantIntValue(loop.getLowerBound());
  auto step = getConstantIntValue(loop.getStep());
  k.extent = gridExprOf(loop.getUpperBound());
  if (loop->getParentOp() != func.getOperation() || !lb || *lb != 0 ||
      !step || *step <= 0 || !k.extent)
    return std::nullopt;
  k.step = *step;
  k.aBytes = storageBytes(getElementTypeOrSelf(dot.getA().getType()));
  k.bBytes = storageBytes(getElementTypeOrSelf(dot.getB().getType()));
  std::tie(k.aParam, k.aRank) = loadedArgument(dot.getA());
  std::tie(k.bParam, k.bRank) = loadedArgument(dot.getB());
  return k;
}

/// Sets a member's tile.num_warps, in the integer type the kernel wrote it
/// in (i64 where it did not).
void setNumWarps(func::FuncOp member, int64_t warps) {
  auto written = member->getAttrOfType<IntegerAttr>(kNumWarpsAttr);
  Type type = written ? written.getType()
                      : IntegerType::get(member.getContext(), 64);
  member->setAttr(kNumWarpsAttr, IntegerAttr::get(type, warps));
}

/// A member with fewer rows than the program has fewer warpgroups on
/// sm_90a: wgmma gives each warpgroup 64-row blocks of the accumulator, so a
/// 64-row tile with the program's two warpgroups would fall back to
/// mma.sync. (Warps only place the work; the program does not read them.)
void setMemberWarps(func::FuncOp member, int64_t programRows, int64_t rows) {
  int warps = getNumWarps(member);
  if (!TargetInfo::of(member).wgmma || rows >= programRows || rows % 64 != 0 ||
      warps % 4 != 0)
    return;
  setNumWarps(member, std::min<int64_t>(warps, 4 * (rows / 64)));
}

/// A member of `func`'s family: a clone of `source` named NAME__RxC (with
/// split-K, NAME__RxC_kS; stream-K, NAME__RxC_sk; otherwise NAME__RxC
/// followed by `suffix`: _c2 in clusters of two, _swap swap-AB, _pp
/// ping-pong), marked a variant of `func` and placed after `after`; null,
/// with an error naming the attribute `asked` that lists the members, where
/// the name is taken.
func::FuncOp cloneMember(func::FuncOp func, func::FuncOp source,
                         std::pair<int64_t, int64_t> shape, Split split,
                         Operation *after, StringRef asked,
                         StringRef suffix = "") {
  std::string name = (func.getSymName() + "__" + std::to_string(shape.first) +
                      "x" + std::to_string(shape.second))
                         .str();
  if (split.ways > 1)
    name += "_k" + std::to_string(split.ways);
  if (split.streamK > 1)
    name += "_sk";
  name += suffix;
  if (SymbolTable::lookupSymbolIn(func->getParentOp(), name)) {
    func.emitError() << asked << ": '" << name
                     << "' is listed twice or already defined";
    return {};
  }
  auto member = cast<func::FuncOp>(source->clone());
  member.setSymName(name);
  member->setAttr(kVariantOfAttr,
                  FlatSymbolRefAttr::get(func.getSymNameAttr()));
  OpBuilder(func).insert(member);
  member->moveAfter(after);
  return member;
}

struct TileShapeVariants
    : public tilec::impl::TileShapeVariantsBase<TileShapeVariants> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<func::FuncOp> kernels;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func->hasAttr(kKernelAttr) && !func.isExternal() &&
          !func->hasAttr(kVariantOfAttr))
        kernels.push_back(func);
    for (func::FuncOp func : kernels)
      if (failed(runOnKernel(func)))
        return signalPassFailure();
  }

  LogicalResult runOnKernel(func::FuncOp func) {
    MLIRContext *ctx = &getContext();
    auto requested = func->getAttrOfType<ArrayAttr>(kTileShapesAttr);
    std::string why;
    std::optional<Plan> plan = Analysis(func).run(why);
    if (!plan) {
      if (requested)
        return func.emitError() << "cannot compile '" << func.getSymName()
                                << "' at other tile shapes (tile.tile_shapes): "
                                << why;
      return success();
    }
    // The shapes: as requested, or the program's and, on sm_90a, at most
    // 128x128 (more tiles where the program's make too few to fill the SMs).
    SmallVector<std::pair<int64_t, int64_t>> shapes;
    if (requested) {
      for (Attribute a : requested) {
        auto pair = cast<ArrayAttr>(a);
        shapes.push_back({cast<IntegerAttr>(pair[0]).getInt(),
                          cast<IntegerAttr>(pair[1]).getInt()});
      }
    } else {
      shapes.push_back({plan->rows.size, plan->cols.size});
      // 128 rows at 128 and 64 columns; 64 rows (one warpgroup: at small M
      // most of a 128-row tile is padding, and a one-warpgroup program
      // streams B at more tiles) at up to 256, 128 and 64 columns. On
      // sm_100a the 128-row ones only (tcgen05 takes 128 rows a CTA).
      std::pair<int64_t, int64_t> smaller[] = {
          {128, 128}, {128, 64}, {64, 256}, {64, 128}, {64, 64}};
      for (auto [rows, cols] : smaller) {
        std::pair<int64_t, int64_t> shape = {
            std::min<int64_t>(plan->rows.size, rows),
            std::min<int64_t>(plan->cols.size, cols)};
        const TargetInfo &target = TargetInfo::of(func);
        bool fast = target.wgmma || (target.tcgen05 && shape.first == 128);
        if (fast && !llvm::is_contained(shapes, shape))
          shapes.push_back(shape);
      }
      // A 128x256 program's tile on its side, 256x128 (each warpgroup 128
      // rows): the same area and operand traffic, another count of waves
      // (4000x4104 is 4.1 waves of 128x256 tiles and 4.0 of 256x128, and
      // ran 21% faster so). It is a little slower a tile (costOf's
      // tileTime), so the cost model takes it only where it saves a wave.
      // And 128x192, as two column blocks (128 + 64, splitColumns): 2.9
      // waves at 3072^2 where 128x256 makes 2.2, 1.0 at 777x3008 where it
      // makes 0.6 (90% and 78% of cuBLAS where 128x256 ran 74% and 67%;
      // 1% slower a tile at 8192^3: docs/plans/gemm-shapes.md).
      if (TargetInfo::of(func).wgmma && plan->rows.size == 128 &&
          plan->cols.size == 256) {
        shapes.push_back({256, 128});
        shapes.push_back({128, 192});
      }
    }
    func->removeAttr(kTileShapesAttr);
    SmallVector<Attribute> variantNames;
    SmallVector<std::pair<func::FuncOp, std::pair<int64_t, int64_t>>> members;
    Operation *after = func;
    for (auto [i, shape] : llvm::enumerate(shapes)) {
      func::FuncOp member = func;
      if (i > 0) {
        member = cloneMember(func, func, shape, Split{}, after, kTileShapesAttr);
        if (!member)
          return failure();
        after = member;
        variantNames.push_back(FlatSymbolRefAttr::get(member.getSymNameAttr()));
      }
      members.push_back({member, shape});
    }
    // Re-tile each member: the kernel by its plan, each clone (of the
    // program as written, with values of its own) by its own analysis. A
    // shape the kernel did not ask for that cannot be built is dropped with
    // a remark; one it asked for is an error.
    SmallVector<std::pair<func::FuncOp, std::pair<int64_t, int64_t>>> built;
    // A width that is not a power of two is two column blocks whose widths
    // are (192 = 128 + 64).
    auto build = [&](func::FuncOp member, Plan &p,
                     std::pair<int64_t, int64_t> shape) -> LogicalResult {
      auto [rows, cols] = shape;
      if (cols <= 0 || llvm::isPowerOf2_64(cols))
        return retile(member, p, rows, cols, why);
      int64_t first = int64_t(llvm::bit_floor(uint64_t(cols)));
      if (!llvm::isPowerOf2_64(cols - first)) {
        why = "a width of " + std::to_string(cols) +
              " is not the sum of two powers of two";
        return failure();
      }
      return splitColumns(member, p, first, cols - first, why, [&] {
        return retile(member, p, rows, first, why);
      });
    };
    for (auto &[member, shape] : members) {
      std::optional<Plan> own;
      if (member != func)
        own = Analysis(member).run(why);
      Plan *p = member == func ? &*plan : own ? &*own : nullptr;
      if (!p || failed(build(member, *p, shape))) {
        if (requested || member == func)
          return func.emitError() << "cannot compile '" << func.getSymName()
                                  << "' at tile shape " << shape.first << "x"
                                  << shape.second << ": " << why;
        mlir::emitRemark(func.getLoc())
            << "'" << func.getSymName() << "' is not also compiled at tile "
            << "shape " << shape.first << "x" << shape.second << ": " << why;
        llvm::erase(variantNames, FlatSymbolRefAttr::get(member.getSymNameAttr()));
        member.erase();
        continue;
      }
      setMemberWarps(member, plan->rows.size, shape.first);
      built.push_back({member, shape});
    }
    members = std::move(built);
    // Split-K members: as requested (tile.split_k, every shape), or 2 and 4
    // ways on sm_90a for the 64-row shapes (where the output has too few
    // tiles for the SMs and K is long; at those M, 64-row splits beat
    // 128-row ones: bench/RESULTS.md, 2026-11-24) whose accumulator takes
    // at most 128 / S registers a thread (the fix-up holds the sum and a
    // partial: a 4-warp 128x128 tile split 2 ways and a 64x128 i32 tile
    // split 4 ways spilled).
    auto requestedSplits = func->getAttrOfType<ArrayAttr>(kSplitKAttr);
    func->removeAttr(kSplitKAttr);
    SmallVector<int64_t> splits;
    if (requestedSplits) {
      for (Attribute a : requestedSplits)
        splits.push_back(cast<IntegerAttr>(a).getInt());
    } else if (TargetInfo::of(func).wgmma) {
      splits = {2, 4};
    }
    std::optional<KLoop> headLoop = analyzeKLoop(func);
    if (requestedSplits && !requestedSplits.empty() && !headLoop)
      return func.emitError()
             << "cannot split the K loop of '" << func.getSymName()
             << "' (tile.split_k): its main loop is not a top-level scf.for "
                "from 0 by a constant step to a kernel argument's extent";
    SmallVector<std::tuple<func::FuncOp, std::pair<int64_t, int64_t>, Split>>
        family;
    for (auto &[member, shape] : members)
      family.push_back({member, shape, Split{}});
    after = members.back().first;
    // Adds a member built after `after` to the family and the variants.
    auto addToFamily = [&](func::FuncOp clone,
                           std::pair<int64_t, int64_t> shape, Split split) {
      after = clone;
      variantNames.push_back(FlatSymbolRefAttr::get(clone.getSymNameAttr()));
      family.push_back({clone, shape, split});
    };
    // A split member of `shape` cloned from `source`, added to the family;
    // null, with `why` set, where the K loop cannot be split.
    auto splitMember = [&](func::FuncOp source,
                           std::pair<int64_t, int64_t> shape,
                           Split split) -> FailureOr<func::FuncOp> {
      func::FuncOp clone =
          cloneMember(func, source, shape, split, after, kSplitKAttr);
      if (!clone)
        return failure();
      std::optional<KLoop> loop = analyzeKLoop(clone);
      if (!loop || failed(splitK(clone, *loop, split, why))) {
        clone.erase();
        return func::FuncOp();
      }
      addToFamily(clone, shape, split);
      return clone;
    };
    // Why the kernel cannot be split (the same for every shape): the
    // default members stop at the first failure, with one remark.
    bool unsplittable = false;
    for (auto &[member, shape] : members) {
      if (!headLoop || unsplittable ||
          (!requestedSplits && shape.first != 64))
        continue;
      for (int64_t split : splits) {
        int64_t accRegisters =
            shape.first * shape.second / (32 * getNumWarps(member));
        if (!requestedSplits && accRegisters * split > 128)
          continue;
        FailureOr<func::FuncOp> clone =
            splitMember(member, shape, Split{split, 0});
        if (failed(clone))
          return failure();
        if (!*clone) {
          if (requestedSplits)
            return func.emitError() << "cannot split the K loop of '"
                                    << func.getSymName() << "' " << split
                                    << " ways (tile.split_k): " << why;
          mlir::emitRemark(func.getLoc())
              << "'" << func.getSymName() << "' has no split-K members: "
              << why;
          unsplittable = true;
          break;
        }
      }
    }
    // A stream-K member of the kernel's own shape (at least 128 rows: the
    // tiles whose last wave quantizes worst), unless splits were asked
    // for: its persistent schedule splits the K steps of the last, partial
    // wave's tiles so that every SM gets work (docs/ARCHITECTURE.md,
    // "Stream-K"). Ping-pong and cluster kernels keep whole tiles (their
    // schedules need every tile to run the same K steps).
    auto schedule = func->getAttrOfType<ScheduleAttr>(kScheduleAttr);
    auto cluster = func->getAttrOfType<IntegerAttr>(kClusterAttr);
    bool ownSchedule =
        (schedule && schedule.getValue() == Schedule::PingPong) ||
        (cluster && cluster.getInt() > 1);
    std::pair<int64_t, int64_t> headShape = members.front().second;
    if (headLoop && !requestedSplits && !unsplittable &&
        TargetInfo::of(func).wgmma && headShape.first >= 128 && !ownSchedule) {
      FailureOr<func::FuncOp> clone =
          splitMember(func, headShape, Split{1, kStreamKSplits});
      if (failed(clone))
        return failure();
      if (!*clone)
        mlir::emitRemark(func.getLoc())
            << "'" << func.getSymName() << "' has no stream-K member: " << why;
    }
    // A member of the kernel's own 128x256 shape in clusters of two along
    // M (tile.cluster = 2): the pair's B tile is one copy multicast to
    // both CTAs, which halves what B costs the L2. The 128x256 tile is
    // near what the L2 feeds an SM: in clusters it ran 1-2% faster at
    // 8192^3, and 15-25% faster where the operands' rows are 16-byte but
    // not 32-byte aligned (each 128-byte box row then touches 5 sectors:
    // 9656x13112x10280 0.78 -> 0.97 of cuBLAS; docs/plans/gemm-shapes.md).
    if (!requested && TargetInfo::of(func).wgmma && headShape.first == 128 &&
        headShape.second == 256 && !ownSchedule) {
      func::FuncOp clone = cloneMember(func, func, headShape, Split{}, after,
                                       kTileShapesAttr, "_c2");
      if (!clone)
        return failure();
      clone->setAttr(kClusterAttr,
                     IntegerAttr::get(IntegerType::get(ctx, 64), 2));
      addToFamily(clone, headShape, Split{});
    }
    // A ping-pong member of 128x128 tiles (`NAME__128x128_pp`, one
    // warpgroup a tile, tile.schedule = pingpong): two tiles of a program
    // take turns at the tensor cores, so one's epilogue runs under the
    // other's K steps. A cooperative 128x256 tile's epilogue costs about
    // 0.8 of a K step that nothing overlaps; at K <= 1024 that is what
    // decides, and the ping-pong member ran 1.16-1.19x the 128x256 head at
    // K = 128-256, 1.06-1.12x at 384-512, 1.00-1.02x at 768-1024 and
    // 0.95-1.00x beyond (H200, 2026-12-01: bench/HISTORY.md). The K loop
    // must be known (its trip count the same for every tile, which the
    // schedule needs) and carry only the accumulator (one warpgroup holds
    // it whole).
    if (!requested && headLoop && TargetInfo::of(func).wgmma &&
        headShape.first == 128 && headShape.second == 256 && !ownSchedule &&
        headLoop->loop.getNumRegionIterArgs() == 1) {
      std::pair<int64_t, int64_t> shape{128, 128};
      func::FuncOp clone = cloneMember(func, func, shape, Split{}, after,
                                       kTileShapesAttr, "_pp");
      if (!clone)
        return failure();
      std::optional<Plan> own = Analysis(clone).run(why);
      if (!own || failed(retile(clone, *own, shape.first, shape.second, why))) {
        mlir::emitRemark(func.getLoc())
            << "'" << func.getSymName() << "' has no ping-pong member: " << why;
        clone.erase();
      } else {
        setNumWarps(clone, 4);
        clone->setAttr(kScheduleAttr,
                       ScheduleAttr::get(ctx, Schedule::PingPong));
        addToFamily(clone, shape, Split{});
      }
    }
    // Swap-AB members (C computed transposed, wgmma's N along M) of 16 and
    // 32 rows by 64 columns, for M <= 32: their A slot is 16 or 32 rows,
    // not the 64 a row-major tile pads to, and their K step twice 128
    // bytes, so a stage streams more of B. Written as such (a probe on
    // the H200, 2026-11-30, same run as cuBLAS): 0.93-1.10 of cuBLAS at
    // M = 1..32 where the 64-row members ran 0.67-0.95
    // (docs/plans/gemm-shapes.md). Ping-pong and cluster kernels keep
    // their schedules' shapes.
    if (!requested && headLoop && TargetInfo::of(func).wgmma && !ownSchedule &&
        headShape.first >= 64 && headShape.second >= 64) {
      int64_t step = headLoop->step;
      if (step * headLoop->aBytes == 128 && headLoop->aBytes == headLoop->bBytes)
        step *= 2;
      for (auto shape : {std::pair<int64_t, int64_t>{16, 64}, {32, 64}}) {
        func::FuncOp clone = cloneMember(func, func, shape, Split{}, after,
                                         kTileShapesAttr, "_swap");
        if (!clone)
          return failure();
        std::optional<Plan> own = Analysis(clone).run(why);
        if (!own || failed(retile(clone, *own, shape.first, shape.second, why)) ||
            failed(swapOperands(clone, *own, step, why))) {
          mlir::emitRemark(func.getLoc())
              << "'" << func.getSymName() << "' has no swap-AB member "
              << shape.first << "x" << shape.second << ": " << why;
          clone.erase();
          break;
        }
        // The swapped dot's rows are the tile's columns.
        setMemberWarps(clone, plan->rows.size, shape.second);
        addToFamily(clone, shape, Split{});
      }
    }
    if (variantNames.empty())
      return success();
    func->setAttr(kVariantsAttr, ArrayAttr::get(ctx, variantNames));
    // Every member's cost is K-aware where the K loop is known (the costs
    // of one family must be comparable).
    // (The K loop's step, extent and operands are the head's in every
    // member.)
    // (A swap-AB member's K step is its own loop's; split members' loops
    // no longer start at 0 and keep the head's.)
    for (auto &[member, shape, split] : family) {
      std::optional<KLoop> k = headLoop;
      if (std::optional<KLoop> own = k ? analyzeKLoop(member) : std::nullopt)
        k->step = own->step;
      member->setAttr(kCostAttr, costOf(member, shape.first, shape.second,
                                        k ? &*k : nullptr, *plan, split));
    }
    return success();
  }
};

} // namespace
