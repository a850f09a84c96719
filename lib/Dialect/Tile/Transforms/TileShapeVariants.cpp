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

namespace {

/// Verifies a rewritten member; where it fails, says why in `why` (with
/// the verifier's first message) instead of reporting errors for a member
/// the kernel then goes without.
LogicalResult verifyTrial(func::FuncOp func, StringRef what,
                          std::string &why) {
  std::string first;
  ScopedDiagnosticHandler quiet(func.getContext(), [&](Diagnostic &d) {
    if (first.empty() && d.getSeverity() == DiagnosticSeverity::Error)
      first = d.str();
    return success();
  });
  if (succeeded(verify(func)))
    return success();
  why = (what + " does not verify (" + first + ")").str();
  return failure();
}

/// A load or store with a mask (the mask's tile would need the new shape
/// too).
bool hasMask(Operation *op) {
  if (auto l = dyn_cast<LoadOp>(op))
    return bool(l.getMask());
  if (auto st = dyn_cast<StoreOp>(op))
    return bool(st.getMask());
  return false;
}

/// Union-find over the dims of a kernel's tiles: (value, dim) pairs whose
/// sizes must stay equal.
class DimClasses {
public:
  int find(Value v, unsigned d) { return root(node(v, d)); }
  void unite(Value a, unsigned da, Value b, unsigned db) {
    int x = find(a, da), y = find(b, db);
    if (x != y)
      parent[x] = y;
  }
  /// Unites every dim of `a` with the same dim of `b` (tiles of one shape).
  void uniteAll(Value a, Value b) {
    for (unsigned d = 0, e = rank(a); d < e && d < rank(b); ++d)
      unite(a, d, b, d);
  }
  static unsigned rank(Value v) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return t ? t.getRank() : 0;
  }

private:
  int node(Value v, unsigned d) {
    auto [it, inserted] =
        ids.try_emplace({v.getAsOpaquePointer(), d}, int(parent.size()));
    if (inserted)
      parent.push_back(it->second);
    return it->second;
  }
  int root(int x) {
    while (parent[x] != x)
      x = parent[x] = parent[parent[x]];
    return x;
  }
  llvm::DenseMap<std::pair<const void *, unsigned>, int> ids;
  std::vector<int> parent;
};

/// The output rows or columns of the main dot.
struct TiledDim {
  int cls = -1;
  int64_t size = 0;
  int axis = -1;                       // the program id that places it
  SmallVector<arith::MulIOp> offsets; // program_id * size
  GridExprAttr extent;                // E of the grid's cdiv(E, size)
};

/// How a kernel's output tile can be re-tiled.
struct Plan {
  DimClasses classes;
  TiledDim rows, cols;
  SmallVector<Value> tiles; // every tile-typed value of the kernel
  llvm::SmallPtrSet<Operation *, 8> products; // rows' and cols' offsets
};

/// The dot of the kernel's main loop: in a top-level scf.for, carried.
DotOp mainDot(func::FuncOp func) {
  for (auto loop : func.getBody().getOps<scf::ForOp>())
    for (auto dot : loop.getBody()->getOps<DotOp>())
      for (OpOperand &use : dot->getUses())
        if (isa<scf::YieldOp>(use.getOwner()))
          return dot;
  return {};
}

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
    Value tile = isa<LoadOp>(access) ? Value(access->getResult(0))
                                     : Value(cast<StoreOp>(access).getValue());
    int c = plan.classes.find(tile, d);
    if (c == plan.rows.cls)
      return &plan.rows;
    if (c == plan.cols.cls)
      return &plan.cols;
    return nullptr;
  }

  static OperandRange offsetsOf(Operation *access) {
    if (auto l = dyn_cast<LoadOp>(access))
      return l.getOffsets();
    return cast<StoreOp>(access).getOffsets();
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

/// Relative time of one tile of the output at this shape, for the cost
/// model (docs/ARCHITECTURE.md): its area over the efficiency measured for
/// tiles of its shape on the H100 (bench/RESULTS.md). Smaller tiles move
/// more operand bytes per MMA.
int64_t tileTime(int64_t rows, int64_t cols) {
  // Operand bytes per MMA flop go as 1/rows + 1/cols; past 128x256's they
  // cost this much efficiency per unit of excess.
  constexpr double kPenalty = 0.8;
  double traffic = 1.0 / double(rows) + 1.0 / double(cols);
  double excess = std::max(0.0, traffic / (1.0 / 128 + 1.0 / 256) - 1.0);
  return int64_t(double(rows * cols) * (1.0 + kPenalty * excess));
}

/// Whether integer constants equal to `td`'s size are used other than in
/// the offsets' products: they might be the tile size in disguise.
bool otherConstantUses(func::FuncOp func, const Plan &plan,
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

/// Re-tiles `func` (as analyzed in `plan`) to rows x cols.
LogicalResult retile(func::FuncOp func, Plan &plan, int64_t rows,
                     int64_t cols, std::string &why) {
  TiledDim *dims[2] = {&plan.rows, &plan.cols};
  int64_t sizes[2] = {rows, cols};
  for (int i = 0; i < 2; ++i)
    if (sizes[i] != dims[i]->size && otherConstantUses(func, plan, *dims[i], why))
      return failure();
  auto newSize = [&](int cls, int64_t size) {
    for (int i = 0; i < 2; ++i)
      if (cls == dims[i]->cls)
        return sizes[i];
    return size;
  };
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

/// The K loop of a GEMM-like kernel: what split-K rewrites and what makes
/// the costs K-aware.
struct KLoop {
  scf::ForOp loop;
  int64_t step = 0;       // BK
  GridExprAttr extent;    // K, as the runtime can evaluate it
  unsigned aBytes = 0;    // bytes of an element of the dot's A and B
  unsigned bBytes = 0;
};

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
  return k;
}

/// How a member divides its tiles' K steps: split-K (every tile `ways`
/// ways, grid z) or stream-K (up to `streamK` ways, as the persistent
/// schedule chooses per tile).
struct Split {
  int64_t ways = 1;
  int64_t streamK = 0;
};

/// The launch's estimated time (docs/ARCHITECTURE.md), in units of about
/// 22 ps (a 128x256 tile's K step of 64 bf16 on the H100 is 32768 units).
/// Without a known K loop: waves of tiles over the SMs, each as long as a
/// tile of this shape takes. With one: the longer of the programs' chain of
/// K steps (waves of units, a unit being a tile or, split S ways, an S-th
/// of its K steps) and reading A and B from memory once (2.6 TB/s), plus
/// half the shorter of the two (they do not overlap perfectly), plus
/// for split members a fix-up each wave of units: writing the partials,
/// the last unit of a tile reading and summing S of them, and a plain
/// epilogue, about 4 S + 8 K steps as measured on the H100 (RESULTS.md,
/// 2026-11-24: 3072^2 x 4096 split 2 ways took 39 us more over 9 waves).
GridExprAttr costOf(func::FuncOp func, int64_t rows, int64_t cols,
                    const KLoop *k, const Plan &plan, Split split) {
  int64_t splits = split.ways;
  MLIRContext *ctx = func.getContext();
  auto call = GridExprAttr::call;
  auto lit = [&](int64_t v) { return GridExprAttr::literal(ctx, v); };
  GridExprAttr units;
  for (GridExprAttr g : func->getAttrOfType<GridAttr>(kGridAttr).getAxes())
    units = units ? call(GridOp::Mul, units, g) : g;
  GridExprAttr waves = call(GridOp::CDiv, units, GridExprAttr::sms(ctx));
  if (!k)
    return call(GridOp::Mul, waves, lit(tileTime(rows, cols)));
  // One K step of the tile: its time at BK * bytes = 128 (64 bf16, 128
  // fp8: the tensor cores' rate doubles as the bytes halve).
  int64_t step = std::max<int64_t>(
      1, tileTime(rows, cols) * k->step * k->aBytes / 128);
  GridExprAttr steps = call(GridOp::CDiv, k->extent, lit(k->step));
  if (splits > 1)
    steps = call(GridOp::CDiv, steps, lit(splits));
  GridExprAttr chain = call(GridOp::Mul, waves, call(GridOp::Mul, steps, lit(step)));
  // Stream-K: the K steps of all tiles spread evenly over the SMs.
  if (split.streamK > 1)
    chain = call(GridOp::Mul,
                 call(GridOp::CDiv, call(GridOp::Mul, units, steps),
                      GridExprAttr::sms(ctx)),
                 lit(step));
  GridExprAttr bytes = call(
      GridOp::Mul,
      call(GridOp::Add, call(GridOp::Mul, plan.rows.extent, lit(k->aBytes)),
           call(GridOp::Mul, plan.cols.extent, lit(k->bBytes))),
      k->extent);
  // The K steps and the reads overlap, but not perfectly: the shorter adds
  // half its time (fitted to every member timed at the 60 shapes of
  // bench/gemm_llm.py on the H100, 2026-11-24; without it the cost model
  // tied the members wherever reading B bounds the time, and took 128-row
  // tiles at M <= 64 whose wasted MMA rows made them up to 25% slower).
  GridExprAttr memory = call(GridOp::Div, bytes, lit(56));
  GridExprAttr cost =
      call(GridOp::Add, call(GridOp::Max, chain, memory),
           call(GridOp::Div, call(GridOp::Min, chain, memory), lit(2)));
  if (splits > 1)
    cost = call(GridOp::Add, cost,
                call(GridOp::Mul, waves, lit((4 * splits + 8) * step)));
  // Stream-K's fix-up: the last unit of a split tile reads the S
  // partials alone, max(24, 12 S - 24) K steps as measured on the H100
  // (RESULTS.md, "Stream-K": 36 at S = 5, 72 at S = 8; 12 at S = 3 chose
  // the member at 128 x 10240 x 8192 where it ran 20% slower, so the
  // floor of 24 a fix-up of few partials was first fitted to stays), S
  // estimated as sms / (tiles mod sms) within 4..8.
  if (split.streamK > 1) {
    GridExprAttr sms = GridExprAttr::sms(ctx);
    GridExprAttr rem = call(GridOp::Sub, units,
                            call(GridOp::Mul, call(GridOp::Div, units, sms), sms));
    GridExprAttr ways = call(
        GridOp::Max, lit(4),
        call(GridOp::Min, lit(split.streamK),
             call(GridOp::Div, sms, call(GridOp::Max, rem, lit(1)))));
    cost = call(GridOp::Add, cost,
                call(GridOp::Mul,
                     call(GridOp::Sub, call(GridOp::Mul, ways, lit(12)), lit(24)),
                     lit(step)));
  }
  return cost;
}

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
LogicalResult splitK(func::FuncOp func, const KLoop &k, Split split,
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
                    Value(), /*in_bounds=*/true);
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
                    /*in_bounds=*/true);
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

/// The most units a stream-K member's schedule splits a tile into.
constexpr int64_t kStreamKSplits = 8;

/// A member with fewer rows than the program has fewer warpgroups on
/// sm_90a: wgmma gives each warpgroup 64-row blocks of the accumulator, so a
/// 64-row tile with the program's two warpgroups would fall back to
/// mma.sync. (Warps only place the work; the program does not read them.)
void setMemberWarps(func::FuncOp member, int64_t programRows, int64_t rows) {
  int warps = getNumWarps(member);
  if (!TargetInfo::of(member).wgmma || rows >= programRows || rows % 64 != 0 ||
      warps % 4 != 0)
    return;
  auto written = member->getAttrOfType<IntegerAttr>(kNumWarpsAttr);
  Type type = written ? written.getType()
                      : IntegerType::get(member.getContext(), 64);
  member->setAttr(kNumWarpsAttr,
                  IntegerAttr::get(type, std::min<int64_t>(warps, 4 * (rows / 64))));
}

/// A member of `func`'s family: a clone of `source` named NAME__RxC (with
/// split-K, NAME__RxC_kS; stream-K, NAME__RxC_sk), marked a variant of `func` and placed after
/// `after`; null, with an error naming the attribute `asked` that lists the
/// members, where the name is taken.
func::FuncOp cloneMember(func::FuncOp func, func::FuncOp source,
                         std::pair<int64_t, int64_t> shape, Split split,
                         Operation *after, StringRef asked) {
  std::string name = (func.getSymName() + "__" + std::to_string(shape.first) +
                      "x" + std::to_string(shape.second))
                         .str();
  if (split.ways > 1)
    name += "_k" + std::to_string(split.ways);
  if (split.streamK > 1)
    name += "_sk";
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
    for (auto &[member, shape] : members) {
      std::optional<Plan> own;
      if (member != func)
        own = Analysis(member).run(why);
      Plan *p = member == func ? &*plan : own ? &*own : nullptr;
      if (!p || failed(retile(member, *p, shape.first, shape.second, why))) {
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
      after = clone;
      variantNames.push_back(FlatSymbolRefAttr::get(clone.getSymNameAttr()));
      family.push_back({clone, shape, split});
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
    std::pair<int64_t, int64_t> headShape = members.front().second;
    if (headLoop && !requestedSplits && !unsplittable &&
        TargetInfo::of(func).wgmma && headShape.first >= 128 &&
        (!schedule || schedule.getValue() != Schedule::PingPong) &&
        (!cluster || cluster.getInt() <= 1)) {
      FailureOr<func::FuncOp> clone =
          splitMember(func, headShape, Split{1, kStreamKSplits});
      if (failed(clone))
        return failure();
      if (!*clone)
        mlir::emitRemark(func.getLoc())
            << "'" << func.getSymName() << "' has no stream-K member: " << why;
    }
    if (variantNames.empty())
      return success();
    func->setAttr(kVariantsAttr, ArrayAttr::get(ctx, variantNames));
    // Every member's cost is K-aware where the K loop is known (the costs
    // of one family must be comparable).
    // (The K loop's step, extent and operands are the head's in every
    // member.)
    for (auto &[member, shape, split] : family)
      member->setAttr(kCostAttr,
                      costOf(member, shape.first, shape.second,
                             headLoop ? &*headLoop : nullptr, *plan, split));
    return success();
  }
};

} // namespace
