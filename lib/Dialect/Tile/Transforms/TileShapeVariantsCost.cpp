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
int64_t shape_variants::tileTime(int64_t rows, int64_t cols) {
  // Operand bytes per MMA flop go as 1/rows + 1/cols; past 128x256's they
  // cost this much efficiency per unit of excess.
  constexpr double kPenalty = 0.8;
  double traffic = 1.0 / double(rows) + 1.0 / double(cols);
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
