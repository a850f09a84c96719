//===- TileShapeVariantsCost.cpp - the cost model of a family's members ---===//
//
// tile-shape-variants' estimate of a launch's time, which the runtime
// evaluates for each member of a family to launch the cheapest.
//
//===----------------------------------------------------------------------===//

#include "ShapeVariants.h"

#include "tilec/Dialect/Tile/TargetInfo.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

/// Relative time of one tile of the output at this shape, for the cost
/// model (docs/ARCHITECTURE.md): its area over the efficiency measured for
/// tiles of its shape on the H100 (bench/RESULTS.md). Smaller tiles move
/// more operand bytes per MMA.
int64_t shape_variants::tileTime(int64_t rows, int64_t cols, double aTraffic,
                                 double bTraffic) {
  // Operand bytes per MMA flop go as 1/rows + 1/cols; past 128x256's they
  // cost this much efficiency per unit of excess.
  constexpr double kPenalty = 0.8;
  double traffic = bTraffic / double(rows) + aTraffic / double(cols);
  double excess = std::max(0.0, traffic / (1.0 / 128 + 1.0 / 256) - 1.0);
  // Tiles of more than 128 rows (256x128: two 64-row MMAs a warpgroup)
  // ran 0-3% below 128x256 at the same waves on the H200, four stages each
  // (bench/RESULTS.md, 2026-11-29; 4-15% at three): counted 3%.
  double rowsPenalty = rows > 128 ? 1.03 : 1.0;
  return int64_t(double(rows * cols) * (1.0 + kPenalty * excess) *
                 rowsPenalty);
}

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
GridExprAttr shape_variants::costOf(func::FuncOp func, int64_t rows, int64_t cols,
                    const KLoop *k, const Plan &plan, Split split) {
  int64_t splits = split.ways;
  MLIRContext *ctx = func.getContext();
  auto call = GridExprAttr::call;
  auto lit = [&](int64_t v) { return GridExprAttr::literal(ctx, v); };
  // Clusters of C programs along x run whole clusters: the first axis's
  // tiles round up to a multiple of C.
  auto clusterAttr = func->getAttrOfType<IntegerAttr>(kClusterAttr);
  int64_t cluster = clusterAttr ? clusterAttr.getInt() : 1;
  GridExprAttr units;
  for (GridExprAttr g : func->getAttrOfType<GridAttr>(kGridAttr).getAxes()) {
    if (!units && cluster > 1)
      g = call(GridOp::Mul, call(GridOp::CDiv, g, lit(cluster)), lit(cluster));
    units = units ? call(GridOp::Mul, units, g) : g;
  }
  // A ping-pong program has two tiles in flight, taking turns at the
  // tensor cores: a wave is two tiles an SM.
  auto schedule = func->getAttrOfType<ScheduleAttr>(kScheduleAttr);
  bool pingPong = schedule && schedule.getValue() == Schedule::PingPong;
  GridExprAttr waves =
      call(GridOp::CDiv, units,
           pingPong ? call(GridOp::Mul, lit(2), GridExprAttr::sms(ctx))
                    : GridExprAttr::sms(ctx));
  if (!k)
    return call(GridOp::Mul, waves, lit(tileTime(rows, cols)));
  // tileTime's operand traffic as the runtime sees it: an operand whose
  // rows are 16- but not 32-byte aligned moves 5/4 of its bytes (each
  // 128-byte TMA box row touches 5 sectors of 32 bytes, not 4; 9656x13112x
  // 10280 ran at 0.78 of cuBLAS, 0.96 with both operands' rows padded;
  // rows 32- but not 128-byte aligned cost nothing: 12000^2 x 256 bf16,
  // 7897x2688x5952 fp8), and in clusters of C along M B's tile is one copy
  // for C CTAs. The step's cost for each case of the two operands'
  // alignment, chosen at launch by stride(): s00 + a (s10 - s00) + b (s01 -
  // s00) + a b (the rest), a and b being 1 where A's or B's rows are
  // misaligned.
  auto misaligned = [&](int64_t param, int64_t rank,
                        unsigned bytes) -> GridExprAttr {
    if (param < 0 || rank < 2)
      return {};
    GridExprAttr rowBytes = call(
        GridOp::Mul, GridExprAttr::strideOf(ctx, param, rank - 2), lit(bytes));
    GridExprAttr rem = call(
        GridOp::Sub, rowBytes,
        call(GridOp::Mul, call(GridOp::Div, rowBytes, lit(32)), lit(32)));
    return call(GridOp::Min, rem, lit(1));
  };
  // One K step of the tile: its time at BK * bytes = 128 (64 bf16, 128
  // fp8: the tensor cores' rate doubles as the bytes halve). In clusters
  // (B multicast) a step ran 2-4% faster where K is long, and a tile took
  // about one step longer where it is short (H200, 2026-11-30: 4096^2 x
  // 11008 0.94 -> 0.98 of cuBLAS, 8053x5760x1024 0.96 -> 0.90): counted 3%
  // a step plus a step a tile.
  // A ping-pong step is the pair's (2 x cols), 5% slower than one
  // cooperative tile of that area (0.95-1.00 of 128x256 where K is long,
  // and at 3% it was chosen over 256x128 at 7897x2688x5952, where it ran
  // 3% slower: H200, 2026-12-01).
  auto stepOf = [&](bool aOff, bool bOff) {
    double bShare = (bOff ? 1.25 : 1.0) / double(cluster);
    int64_t t = tileTime(rows, pingPong ? 2 * cols : cols, aOff ? 1.25 : 1.0,
                         bShare);
    int64_t percent = cluster > 1 ? 97 : pingPong ? 105 : 100;
    return std::max<int64_t>(1, t * k->step * k->aBytes / 128 * percent / 100);
  };
  int64_t step = stepOf(false, false);
  GridExprAttr misA = misaligned(k->aParam, k->aRank, k->aBytes);
  GridExprAttr misB = misaligned(k->bParam, k->bRank, k->bBytes);
  GridExprAttr stepCost = lit(step);
  // (Terms under 1% of the step, the rounding of the products, are left
  // out.)
  auto addTerm = [&](GridExprAttr flag, int64_t delta) {
    if (flag && std::abs(delta) * 100 > step)
      stepCost = call(GridOp::Add, stepCost, call(GridOp::Mul, flag, lit(delta)));
  };
  int64_t sA = stepOf(true, false), sB = stepOf(false, true),
          sAB = stepOf(true, true);
  addTerm(misA, sA - step);
  addTerm(misB, sB - step);
  if (misA && misB)
    addTerm(call(GridOp::Mul, misA, misB), sAB - sA - sB + step);
  GridExprAttr steps = call(GridOp::CDiv, k->extent, lit(k->step));
  if (splits > 1)
    steps = call(GridOp::CDiv, steps, lit(splits));
  GridExprAttr tileSteps = steps;
  if (cluster > 1)
    tileSteps = call(GridOp::Add, steps, lit(1));
  GridExprAttr tileCost = call(GridOp::Mul, tileSteps, stepCost);
  // A cooperative tile's epilogue overlaps nothing, a ping-pong one's the
  // other tile's K steps: counted as 0.8 of a step fewer a ping-pong wave
  // (with the 5% above, the fit of the member's gain: 1.18x at 4 steps,
  // 1.05x at 8, none at 16, 0.96x at 64; measured 1.16-1.19, 1.06-1.08,
  // 1.00-1.01, 0.95-1.00: H200, 2026-12-01, bench/HISTORY.md), where the
  // SMs have two tiles each to alternate (units > sms; else one warpgroup
  // an SM works alone).
  if (pingPong) {
    GridExprAttr paired =
        call(GridOp::Min, lit(1),
             call(GridOp::Div, units,
                  call(GridOp::Add, GridExprAttr::sms(ctx), lit(1))));
    tileCost = call(GridOp::Sub, tileCost,
                    call(GridOp::Mul, paired, lit(step * 8 / 10)));
  }
  GridExprAttr chain = call(GridOp::Mul, waves, tileCost);
  // Stream-K: the K steps of all tiles spread evenly over the SMs.
  if (split.streamK > 1)
    chain = call(GridOp::Mul,
                 call(GridOp::CDiv, call(GridOp::Mul, units, steps),
                      GridExprAttr::sms(ctx)),
                 stepCost);
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
  // Stream-K's fix-up: the S units of a cut tile sum their partials as a
  // binary tree (each writes, the survivor of each pair reads one),
  // max(24, 4 S) K steps. Measured on the H200 (2026-12-01,
  // bench/HISTORY.md: the member against whole tiles at one wave and
  // 11..66 tiles more) 16-31 at S = 8, 11-22 at S = 4, 8-12 at S = 2; the
  // floor stays where the H100's fit put it (12 at S = 3 chose the member
  // at 128 x 10240 x 8192 where it ran 20% slower), S estimated as sms /
  // (tiles mod sms) within 6..stream_k.
  if (split.streamK > 1) {
    GridExprAttr sms = GridExprAttr::sms(ctx);
    GridExprAttr rem = call(GridOp::Sub, units,
                            call(GridOp::Mul, call(GridOp::Div, units, sms), sms));
    GridExprAttr ways = call(
        GridOp::Max, lit(6),
        call(GridOp::Min, lit(split.streamK),
             call(GridOp::Div, sms, call(GridOp::Max, rem, lit(1)))));
    cost = call(GridOp::Add, cost,
                call(GridOp::Mul, call(GridOp::Mul, ways, lit(4)), lit(step)));
  }
  return cost;
}
