//===- TilePersistentTiles.cpp - programs that walk the tiles -------------===//
//
// The tile-persistent-tiles pass. In a kernel tile-partition-schedule
// marked `tgpu.persistent`, after materialization (tile-warp-specialize),
// both regions of the `tgpu.warp_specialize` loop over the program's
// tiles: the grid becomes min(SMs, tiles) = P programs (in whole clusters
// of `tile.cluster`), which take the tiles of the original gx x gy grid in
// waves of P, wave w the tiles w * P ... w * P + P - 1, program p the p-th
// of them when w is even and the (P - 1 - p)-th when odd (so no program
// keeps the same place in every wave, where tiles of unequal work, as in
// causal attention, would pile up on it). The order is groups of 8 rows of
// tiles (tiles that share A rows and B columns run at about the same time,
// so they meet in L2). Program ids x and y become the tile's coordinates.
// A grid with a z axis (a batch of gx x gy grids) has gx * gy * gz tiles,
// the batch member t / (gx * gy) outermost; program id z becomes it.
//
// The channels' use counters run on across tiles. A counter is the last
// iter_arg of the loop whose channel_acquire/channel_wait it indexes; its
// start (%i0, a constant tile-insert-channels made) becomes the tile
// loop's running count and the tile loop yields the count after the loop.
// A channel index outside every loop (%t0: the use of the tiles copied
// once, such as attention's Q) becomes the tile's ordinal among the
// program's tiles.
//
// On sm_100a the MMA partition walks the tiles as the load partition
// does, its accumulator acquired for use %t0 (the tile's ordinal: the
// accumulator ring's slot alternates where it is two deep, so tile t + 1's
// MMAs fill one accumulator while the epilogue reads tile t's); the
// compute partition, which has no loop of channel uses (only the
// accumulator's, use %t0), walks them with no counter.
//
// A compute partition of two copies (`#tgpu.partition<compute, ...,
// copies = 2>`, ping-pong) walks alternate tiles: copy c
// (tgpu.consumer_index) takes the program's tiles c, c + 2, ...; its
// counter at its m-th tile is (2m + c) * iterations (every tile runs as
// many), and the copies take turns at the main loop and at the epilogue
// through named barriers (groups "pingpong_mma" and "pingpong_epilogue",
// a barrier a copy), so one's epilogue runs while the other multiplies.
//
// A CTA pair's kernel (tgpu.cta_group): the MMA partition's code of a
// tile runs in the pair's first CTA only (an scf.if on tgpu.cluster_rank
// around it, the counter passing through); the other CTA's MMA warp walks
// the tiles and does nothing else (with launch control, it reads and
// releases the responses as every warp does).
//
// Launch control (sm_100a; tgpu.persistent = #tile.tile_scheduler<
// launch_control>): the grid has a block a tile (a cluster a cluster's
// tiles) and every region's tile loop is an scf.while over (tile, ordinal
// k, use counter), from the block's own tile while the tile is >= 0. At
// the top of tile k the load region waits until response k mod 2 is free,
// announces its 16 bytes and asks for the next tile (tgpu.try_cancel; in
// a cluster only the first CTA asks, for all, multicast); at the bottom
// every region waits for the response, reads it (tgpu.query_cancel: the
// first block's x, -1 when no block was left) and releases it (in a
// cluster, in every CTA). The ordinal k stands where the static loop's
// ordinal does.
//
// The dynamic scheduler (tgpu.persistent = #tile.tile_scheduler<dynamic>,
// any target): the static grid, min(SMs, tiles) programs, and the launch-
// control loop from the program's own tile (none past the last tile), but
// the load region claims the next tile at the bottom of each
// (tgpu.claim_tile: an atomic add on a counter in two words of the
// kernel's semaphores, which the pass adds, its old value c naming tile P
// + c, none past the last) and posts it in the response; after its loop
// it counts the program done and the last program zeroes the counter
// (tgpu.release_tile_counter).
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TGPU/TGPUDialect.h"
#include "tilec/Dialect/Tile/TileDialect.h"
#include "tilec/Dialect/TGPU/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <array>

#define DEBUG_TYPE "tile-persistent-tiles"

namespace tilec {
#define GEN_PASS_DEF_TILEPERSISTENTTILES
#include "tilec/Dialect/TGPU/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// The buffers of the launch-control (or dynamic) tile loop: two
/// responses (try_cancel's, or a claimed counter value in the first word),
/// their full barriers (the response's 16 bytes; the claim's arrival) and
/// empty ones (every warp of every region has read it); with the dynamic
/// scheduler, the tile counter (a view of the kernel's semaphores).
struct Responses {
  Value buffer, full, empty, counter;
};

/// What a tile loop gives its current tile: the program ids (x, y, z) it
/// replaces (z null without a batch) and, in a stream-K loop, the unit
/// (tile.stream_k_unit's results: lo, hi, slot, first, units).
struct TileIds {
  std::array<Value, 3> pid;
  std::array<Value, 5> unit;
};

/// A launch-control (or dynamic) tile loop as Persistent::
/// wrapLaunchControl builds it: the tile's coordinates, its ordinal k, the
/// response it uses (row k mod 2, phase k / 2 mod 2) and, for the dynamic
/// scheduler, the tiles there are and the programs.
struct LaunchControlLoop {
  scf::WhileOp loop;
  TileIds ids;
  Value ordinal, slot, phase, tiles, programs;
};

/// Tile `t` where it is one of the `tiles` (unsigned: -1 is past them),
/// else -1 (none): the dynamic scheduler's first and claimed tiles.
Value tileOrNone(OpBuilder &b, Location loc, Value t, Value tiles) {
  return arith::SelectOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, t, tiles), t,
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), -1));
}

/// A persistent schedule: a grid of min(SMs, tiles) programs taking the
/// tiles of the original gx x gy grid in waves, in groups of kGroupM rows of
/// tiles (tiles sharing A rows and B columns run at about the same time, so
/// they meet in L2).
struct Persistent {
  static constexpr int64_t kGroupM = 8;
  GridExprAttr gx, gy; // the original grid's x and y extents
  GridExprAttr gz;     // and z (a batch of such grids), null if 1
  int cluster = 1;     // programs a cluster (along x)
  int64_t streamK = 0; // stream-K: the most units a tile is split into
  // Static waves; launch control (a block a tile, taken over by
  // try_cancel); dynamic (min(SMs, tiles) programs, a tile counter).
  TileScheduler scheduler = TileScheduler::Static;
  int blocksPerSM = 1;         // programs an SM (tile.blocks_per_sm)

  bool launchControl() const {
    return scheduler == TileScheduler::LaunchControl;
  }
  bool dynamic() const { return scheduler == TileScheduler::Dynamic; }

  /// gx * gy tiles of the original grid, times gz.
  GridExprAttr times(GridExprAttr e) const {
    return gz ? GridExprAttr::call(GridOp::Mul, e, gz) : e;
  }

  /// The persistent grid: min(SMs, tiles), in whole clusters.
  GridAttr grid() const {
    MLIRContext *ctx = gx.getContext();
    auto lit = [&](int64_t v) { return GridExprAttr::literal(ctx, v); };
    auto call = GridExprAttr::call;
    GridExprAttr sms = GridExprAttr::sms(ctx), x;
    if (blocksPerSM > 1)
      sms = call(GridOp::Mul, sms, lit(blocksPerSM));
    if (launchControl() && cluster == 1) {
      // A block a tile; running blocks cancel the launch of later ones.
      x = times(call(GridOp::Mul, gx, gy));
    } else if (launchControl()) {
      // The same in whole clusters.
      GridExprAttr c = lit(cluster);
      x = call(GridOp::Mul,
               times(call(GridOp::Mul, call(GridOp::CDiv, gx, c), gy)), c);
    } else if (streamK > 1) {
      // Every SM, where the split tiles give them work.
      x = call(GridOp::Min, sms,
               call(GridOp::Mul, times(call(GridOp::Mul, gx, gy)),
                    lit(streamK)));
    } else if (cluster == 1) {
      x = call(GridOp::Min, sms, times(call(GridOp::Mul, gx, gy)));
    } else {
      GridExprAttr c = lit(cluster);
      GridExprAttr pairs =
          times(call(GridOp::Mul, call(GridOp::CDiv, gx, c), gy));
      x = call(GridOp::Mul,
               call(GridOp::Min, call(GridOp::Div, sms, c), pairs), c);
    }
    return GridAttr::get(ctx, {x, lit(1), lit(1)});
  }

  /// The tile loop at `b` (one i32 iter_arg, starting at 0) and the
  /// program ids (x, y) of its current tile. The loop runs over the
  /// program's tiles by their ordinal w (0, 1, ...): in wave w the programs
  /// take tiles w * P ... w * P + P - 1 of the grouped order, program p the
  /// p-th of them in even waves and the (P - 1 - p)-th in odd ones. (In
  /// step, p, p + P, ... gives the same program the same place in every
  /// group of rows, and when the work of a tile depends on its row, as in
  /// causal attention, some programs then get 12% more than the mean;
  /// alternating the direction pairs a wave's first tiles with the next
  /// wave's last.) With `copies` consumer copies, copy `copy` takes every
  /// copies-th of the program's tiles, starting with its copy-th; `count`
  /// receives how many tiles the program has, `ordinal` the current tile's
  /// place among them.
  std::pair<scf::ForOp, TileIds>
  wrap(OpBuilder &b, Location loc, func::FuncOp func, Value copy = {},
       int copies = 1, Value *count = nullptr, Value *ordinal = nullptr) {
    if (streamK > 1) {
      auto result = wrapStreamK(b, loc, func, streamKSteps(b, loc, func));
      if (ordinal)
        *ordinal = result.first.getInductionVar();
      return result;
    }
    Value nx = emitGridExpr(b, loc, func, gx);
    Value ny = emitGridExpr(b, loc, func, gy);
    Value nz = gz ? emitGridExpr(b, loc, func, gz) : Value();
    Value first = ProgramIdOp::create(b, loc, 0);
    Value stride = NumProgramsOp::create(b, loc, 0);
    auto cst = [&](OpBuilder &ob, int64_t v) {
      return arith::ConstantIntOp::create(ob, loc, ob.getI32Type(), v);
    };
    Value zero = cst(b, 0), one = cst(b, 1);
    // In clusters of `cluster` programs along x, the cluster walks tiles of
    // `cluster` rows of tiles; program rank r takes row r of each.
    Value rank;
    if (cluster > 1) {
      Value cl = cst(b, cluster);
      rank = arith::RemUIOp::create(b, loc, first, cl);
      first = arith::DivUIOp::create(b, loc, first, cl);
      stride = arith::DivUIOp::create(b, loc, stride, cl);
      nx = arith::CeilDivSIOp::create(b, loc, nx, cl);
    }
    Value plane = arith::MulIOp::create(b, loc, nx, ny);
    Value tiles = nz ? arith::MulIOp::create(b, loc, plane, nz) : plane;
    // The program's place in wave w: p, or P - 1 - p when w is odd.
    Value mirror = arith::SubIOp::create(
        b, loc, arith::SubIOp::create(b, loc, stride, one), first);
    auto slot = [&](OpBuilder &ob, Value w) {
      Value odd = arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::ne,
                                        arith::AndIOp::create(ob, loc, w, one),
                                        zero);
      return arith::SelectOp::create(ob, loc, odd, mirror, first);
    };
    // Whole waves (P <= tiles), and a place in the partial last one if the
    // program's slot there is below the tiles left.
    Value waves = arith::DivUIOp::create(b, loc, tiles, stride);
    Value left = arith::RemUIOp::create(b, loc, tiles, stride);
    Value inLast = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         slot(b, waves), left);
    Value total = arith::AddIOp::create(
        b, loc, waves, arith::ExtUIOp::create(b, loc, b.getI32Type(), inLast));
    if (count)
      *count = total;
    Value start = copy ? copy : zero;
    auto loop = scf::ForOp::create(b, loc, start, total, cst(b, copies),
                                   ValueRange{zero});
    OpBuilder ib = OpBuilder::atBlockBegin(loop.getBody());
    Value w = loop.getInductionVar();
    if (ordinal)
      *ordinal = w;
    Value t = arith::AddIOp::create(
        ib, loc, arith::MulIOp::create(ib, loc, w, stride), slot(ib, w));
    return {loop, tileIds(ib, loc, t, plane, nx, ny, nz, rank)};
  }

  /// The program ids (x, y, z) of tile t of the grouped order (tiles of
  /// whole clusters when `rank`, program rank r taking row r of the
  /// cluster's rows): with a batch (z), the batch member is the outermost
  /// index, so a wave walks one member's grid in groups before the next
  /// member's.
  TileIds tileIds(OpBuilder &ib, Location loc, Value t,
                               Value plane, Value nx, Value ny, Value nz,
                               Value rank) const {
    Value pz;
    if (nz) {
      pz = arith::DivUIOp::create(ib, loc, t, plane);
      t = arith::RemUIOp::create(ib, loc, t, plane);
    }
    auto [px, py] = grouped(ib, loc, t, nx, ny);
    if (cluster > 1)
      px = arith::AddIOp::create(
          ib, loc,
          arith::MulIOp::create(
              ib, loc, px,
              arith::ConstantIntOp::create(ib, loc, ib.getI32Type(), cluster)),
          rank);
    return {{px, py, pz}, {}};
  }

  /// The coordinates (x, y) of the t-th tile of an nx x ny grid in groups
  /// of kGroupM rows of tiles, each group column by column.
  static std::pair<Value, Value> grouped(OpBuilder &ib, Location loc, Value t,
                                         Value nx, Value ny) {
    Value group = arith::ConstantIntOp::create(ib, loc, ib.getI32Type(), kGroupM);
    Value perGroup = arith::MulIOp::create(ib, loc, group, ny);
    Value groupId = arith::DivUIOp::create(ib, loc, t, perGroup);
    Value firstM = arith::MulIOp::create(ib, loc, groupId, group);
    Value rows = arith::MinSIOp::create(
        ib, loc, arith::SubIOp::create(ib, loc, nx, firstM), group);
    Value inGroup = arith::RemUIOp::create(ib, loc, t, perGroup);
    Value px = arith::AddIOp::create(
        ib, loc, firstM, arith::RemUIOp::create(ib, loc, inGroup, rows));
    Value py = arith::DivUIOp::create(ib, loc, inGroup, rows);
    return {px, py};
  }

  /// The launch-control tile loop at `b` (scf.while over the tile index t,
  /// the tile ordinal k and the region's use counter, which starts at 0):
  /// t starts as the block's own (program id x) and the loop runs while t
  /// >= 0. At the top of tile k the `scheduler` region asks for the next
  /// tile (try_cancel into response k mod 2, once every region has read
  /// response k - 2); at the bottom every region reads the answer (-1: no
  /// block was left to take over) and releases it.
  ///
  /// The dynamic scheduler's loop is the same but for the asking: t starts
  /// as the program's id (tiles 0 .. P - 1 go to the P programs), and at
  /// the bottom of tile k, once every region has read response k - 2, the
  /// `scheduler` region claims the next tile (tgpu.claim_tile: the
  /// counter's old value c, the tile P + c, none past the last tile) into
  /// response k mod 2. The load region leaves a tile ahead of the
  /// consumers (by its ring), so the claim is made about when a program
  /// needs it: a program that finishes sooner takes more tiles.
  LaunchControlLoop wrapLaunchControl(OpBuilder &b, Location loc,
                                      func::FuncOp func, const Responses &resp,
                                      bool scheduler) {
    auto cst = [&](OpBuilder &ob, int64_t v) {
      return arith::ConstantIntOp::create(ob, loc, ob.getI32Type(), v);
    };
    Type i32 = b.getI32Type();
    Value nx = emitGridExpr(b, loc, func, gx);
    Value ny = emitGridExpr(b, loc, func, gy);
    Value nz = gz ? emitGridExpr(b, loc, func, gz) : Value();
    // In clusters, t counts clusters and program rank r takes row r of the
    // cluster's rows of tiles (as in the static waves).
    Value first = ProgramIdOp::create(b, loc, 0), rank;
    if (cluster > 1) {
      Value cl = cst(b, cluster);
      rank = arith::RemUIOp::create(b, loc, first, cl);
      first = arith::DivUIOp::create(b, loc, first, cl);
      nx = arith::CeilDivSIOp::create(b, loc, nx, cl);
    }
    Value plane = arith::MulIOp::create(b, loc, nx, ny);
    Value tiles, programs;
    if (dynamic()) {
      tiles = nz ? arith::MulIOp::create(b, loc, plane, nz).getResult() : plane;
      programs = NumProgramsOp::create(b, loc, 0);
      // A grid wider than the tiles (a launch given its own grid): the
      // programs past the last tile take none.
      first = tileOrNone(b, loc, first, tiles);
    }
    Value zero = cst(b, 0);
    auto loop = scf::WhileOp::create(b, loc, TypeRange{i32, i32, i32},
                                     ValueRange{first, zero, zero});
    Block *before = b.createBlock(&loop.getBefore(), {}, {i32, i32, i32},
                                  {loc, loc, loc});
    OpBuilder hb = OpBuilder::atBlockBegin(before);
    Value more = arith::CmpIOp::create(hb, loc, arith::CmpIPredicate::sge,
                                       before->getArgument(0), cst(hb, 0));
    scf::ConditionOp::create(hb, loc, more, before->getArguments());
    Block *body = b.createBlock(&loop.getAfter(), {}, {i32, i32, i32},
                                {loc, loc, loc});
    OpBuilder ib = OpBuilder::atBlockBegin(body);
    Value t = body->getArgument(0), k = body->getArgument(1);
    Value two = cst(ib, 2), one = cst(ib, 1);
    Value slot = arith::RemUIOp::create(ib, loc, k, two);
    Value phase = arith::AndIOp::create(
        ib, loc, arith::DivUIOp::create(ib, loc, k, two), one);
    if (scheduler && launchControl()) {
      tgpu::WaitOp::create(ib, loc, resp.empty, slot,
                           arith::XOrIOp::create(ib, loc, phase, one));
      tgpu::ArriveOp::create(ib, loc, resp.full, slot,
                             ib.getI64IntegerAttr(16), IntegerAttr());
      tgpu::TryCancelOp::create(ib, loc, resp.buffer, slot, resp.full,
                                /*multicast=*/cluster > 1);
    }
    return {loop, tileIds(ib, loc, t, plane, nx, ny, nz, rank), k, slot, phase,
            tiles, programs};
  }

  /// The bottom of tile k in the launch-control (or dynamic) loop (see
  /// above): the dynamic scheduler's `scheduler` region claims the next
  /// tile, every region reads the next tile and releases the response.
  void nextLaunchControlTile(OpBuilder &b, Location loc,
                             const LaunchControlLoop &tile,
                             const Responses &resp, Value counter,
                             bool scheduler) const {
    auto cst = [&](int64_t v) {
      return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
    };
    Value slot = tile.slot;
    if (dynamic() && scheduler) {
      tgpu::WaitOp::create(b, loc, resp.empty, slot,
                           arith::XOrIOp::create(b, loc, tile.phase, cst(1)));
      tgpu::ClaimTileOp::create(b, loc, resp.counter, resp.buffer, slot,
                                resp.full);
    }
    tgpu::WaitOp::create(b, loc, resp.full, slot, tile.phase);
    Value next;
    if (dynamic()) {
      Value claimed =
          tgpu::ClaimedTileOp::create(b, loc, b.getI32Type(), resp.buffer, slot);
      next = tileOrNone(
          b, loc, arith::AddIOp::create(b, loc, claimed, tile.programs),
          tile.tiles);
    } else {
      next = tgpu::QueryCancelOp::create(b, loc, b.getI32Type(), resp.buffer,
                                         slot);
    }
    // In clusters: the cluster's index (the first block's x / size), and
    // every warp releases the response in every CTA, so that the first
    // CTA asks again only when all of them have read it.
    IntegerAttr inCluster;
    if (cluster > 1) {
      Value none = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                         next, cst(0));
      next = arith::SelectOp::create(
          b, loc, none, next, arith::DivUIOp::create(b, loc, next, cst(cluster)));
      inCluster = b.getI32IntegerAttr(cluster);
    }
    tgpu::ArriveOp::create(b, loc, resp.empty, slot, IntegerAttr(), inCluster);
    scf::YieldOp::create(
        b, loc,
        ValueRange{next, arith::AddIOp::create(b, loc, tile.ordinal, cst(1)),
                   counter});
  }

  /// A stream-K kernel's K steps a tile (tile.stream_k_unit's `steps`), at
  /// `b`.
  static Value streamKSteps(OpBuilder &b, Location loc, func::FuncOp func) {
    StreamKUnitOp unit;
    func.walk([&](StreamKUnitOp op) {
      unit = op;
      return WalkResult::interrupt();
    });
    if (!unit)
      return arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1);
    return emitGridExpr(b, loc, func, unit.getSteps());
  }

  /// The stream-K tile loop (a grid of no z axis, no clusters or copies):
  /// units are the T tiles in the grouped order, except that the R = T mod
  /// P tiles of the last, partial wave are cut into S units each (S = P /
  /// R if that is at least 2, else 2P / R if at least 3, so that they take
  /// at most two waves of units shorter than a tile; at most `streamK`),
  /// unit z of a tile running its K steps [z per, (z + 1) per) (per =
  /// cdiv(steps, S)). Program p takes units p, p + P, ...: the whole
  /// tiles' waves, then the cut ones, whose partials go to slot v (v: the
  /// unit's index among the cut ones), a tile's S slots consecutive.
  /// (Units that run the same K steps of their tiles run together, so the
  /// tiles of a row or a column meet in L2: a schedule of units of equal
  /// steps laid across tiles end to end, as CUTLASS's stream-K, ran
  /// 1.1-1.35x slower on the H200, every unit at other K steps.) `steps` is
  /// the tile's K steps.
  std::pair<scf::ForOp, TileIds> wrapStreamK(OpBuilder &b, Location loc,
                                             func::FuncOp func, Value steps) {
    auto cst = [&](OpBuilder &ob, int64_t v) {
      return arith::ConstantIntOp::create(ob, loc, ob.getI32Type(), v);
    };
    auto add = [&](OpBuilder &ob, Value x, Value y) -> Value {
      return arith::AddIOp::create(ob, loc, x, y);
    };
    auto sub = [&](OpBuilder &ob, Value x, Value y) -> Value {
      return arith::SubIOp::create(ob, loc, x, y);
    };
    auto mul = [&](OpBuilder &ob, Value x, Value y) -> Value {
      return arith::MulIOp::create(ob, loc, x, y);
    };
    auto div = [&](OpBuilder &ob, Value x, Value y) -> Value {
      return arith::DivUIOp::create(ob, loc, x, y);
    };
    auto uge = [&](OpBuilder &ob, Value x, int64_t v) -> Value {
      return arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::uge, x,
                                   cst(ob, v));
    };
    auto select = [&](OpBuilder &ob, Value c, Value x, Value y) -> Value {
      return arith::SelectOp::create(ob, loc, c, x, y);
    };
    Value nx = emitGridExpr(b, loc, func, gx);
    Value ny = emitGridExpr(b, loc, func, gy);
    Value tiles = mul(b, nx, ny);
    Value p = ProgramIdOp::create(b, loc, 0);
    Value programs = NumProgramsOp::create(b, loc, 0);
    Value zero = cst(b, 0), one = cst(b, 1);
    Value last = arith::RemUIOp::create(b, loc, tiles, programs);
    Value whole = sub(b, tiles, last);
    Value lastOr1 = arith::MaxUIOp::create(b, loc, last, one);
    Value once = div(b, programs, lastOr1);
    Value twice = div(b, add(b, programs, programs), lastOr1);
    Value splits =
        select(b, uge(b, once, 2), once, select(b, uge(b, twice, 3), twice, one));
    splits = arith::MinUIOp::create(b, loc, splits, cst(b, streamK));
    Value per = arith::CeilDivUIOp::create(b, loc, steps, splits);
    Value units = add(b, whole, mul(b, last, splits));
    // ceil((units - p) / P), 0 where p >= units (p < P).
    Value count = div(b, sub(b, add(b, units, programs), add(b, p, one)),
                      programs);
    auto loop = scf::ForOp::create(b, loc, zero, count, one, ValueRange{zero});
    OpBuilder ib = OpBuilder::atBlockBegin(loop.getBody());
    Value u = add(ib, mul(ib, loop.getInductionVar(), programs), p);
    Value cut = arith::CmpIOp::create(ib, loc, arith::CmpIPredicate::uge, u,
                                      whole);
    Value v = sub(ib, u, whole);
    Value z = arith::RemUIOp::create(ib, loc, v, splits);
    Value t = select(ib, cut, add(ib, whole, div(ib, v, splits)), u);
    Value lo = mul(ib, z, per);
    Value hi = arith::MinUIOp::create(ib, loc, add(ib, lo, per), steps);
    TileIds ids;
    auto [px, py] = grouped(ib, loc, t, nx, ny);
    ids.pid = {px, py, Value()};
    ids.unit = {select(ib, cut, lo, zero), select(ib, cut, hi, steps),
                select(ib, cut, v, zero), select(ib, cut, sub(ib, v, z), zero),
                select(ib, cut, splits, one)};
    return {loop, ids};
  }
};

/// The loop of `block` (nested anywhere) whose last iter_arg indexes a
/// channel: the use counter's loop.
scf::ForOp counterLoop(Block *block) {
  scf::ForOp found;
  block->walk([&](scf::ForOp loop) {
    if (found || loop.getNumRegionIterArgs() == 0)
      return;
    Value i = loop.getRegionIterArgs().back();
    if (llvm::any_of(i.getUsers(), [&](Operation *u) {
          return (isa<tgpu::ChannelAcquireOp>(u) &&
                  cast<tgpu::ChannelAcquireOp>(u).getIndex() == i) ||
                 (isa<tgpu::ChannelWaitOp>(u) &&
                  cast<tgpu::ChannelWaitOp>(u).getIndex() == i);
        }))
      found = loop;
  });
  return found;
}

/// The use index of a channel op of `block` outside every loop (the tiles
/// copied once), or null.
Value onceIndex(Block *block) {
  for (Operation &op : *block) {
    if (auto a = dyn_cast<tgpu::ChannelAcquireOp>(op))
      return a.getIndex();
    if (auto w = dyn_cast<tgpu::ChannelWaitOp>(op))
      return w.getIndex();
  }
  return {};
}

/// `v`, a result of an op nested in `block`, as it leaves through the
/// yields of the ops around it: the value at the top level of `block`.
Value atTopLevel(Value v, Block *block) {
  while (v.getDefiningOp()->getBlock() != block) {
    auto res = cast<OpResult>(v);
    OpOperand *out = nullptr;
    for (OpOperand &use : res.getUses())
      if (isa<scf::YieldOp>(use.getOwner()))
        out = &use;
    if (!out)
      return {};
    v = out->getOwner()->getParentOp()->getResult(out->getOperandNumber());
  }
  return v;
}

/// Replaces every use of `v` with `with`, erasing v's definition (a
/// constant) if nothing else reads it.
void replaceStart(Value v, Value with) {
  Operation *def = v.getDefiningOp();
  v.replaceAllUsesWith(with);
  if (def && def->use_empty())
    def->erase();
}

/// Moves the ops of `block` after the tile loop `loop`, up to `end`, to the
/// end of its body, the tile's coordinates `ids` in place of their
/// (top-level) program ids x, y and, with a batch, z, and a stream-K
/// loop's unit in place of tile.stream_k_unit.
void moveIntoTileLoop(Operation *loop, Block *body,
                      const TileIds &ids, Block *block,
                      Block::iterator end) {
  body->getOperations().splice(body->end(), block->getOperations(),
                               std::next(Block::iterator(loop)), end);
  for (Operation &op : llvm::make_early_inc_range(*body)) {
    if (auto unit = dyn_cast<StreamKUnitOp>(op)) {
      for (auto [result, v] : llvm::zip(unit->getResults(), ids.unit))
        result.replaceAllUsesWith(v);
      op.erase();
      continue;
    }
    auto pid = dyn_cast<ProgramIdOp>(op);
    if (!pid)
      continue;
    pid.getResult().replaceAllUsesWith(ids.pid[pid.getAxis()]);
    op.erase();
  }
}

struct TilePersistentTiles
    : public tilec::impl::TilePersistentTilesBase<TilePersistentTiles> {
  using Base::Base;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!func->hasAttr(tgpu::kPersistentAttr)) {
        wholeTiles(func);
        continue;
      }
      tgpu::WarpSpecializeOp ws;
      for (auto op : func.getBody().front().getOps<tgpu::WarpSpecializeOp>())
        ws = op;
      if (ws && failed(walkTiles(func, ws)))
        return signalPassFailure();
      func->removeAttr(tgpu::kPersistentAttr);
    }
  }

  /// A stream-K kernel that does not walk its tiles persistently runs
  /// whole tiles, a program each: tile.stream_k_unit is (0, steps, 0, 0,
  /// 1).
  static void wholeTiles(func::FuncOp func) {
    func.walk([&](StreamKUnitOp unit) {
      OpBuilder b(unit);
      Location loc = unit.getLoc();
      Value zero = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0);
      Value one = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1);
      unit.replaceAllUsesWith(ValueRange{
          zero, emitGridExpr(b, loc, func, unit.getSteps()), zero, zero, one});
      unit.erase();
    });
  }

  LogicalResult walkTiles(func::FuncOp func, tgpu::WarpSpecializeOp ws) {
    Persistent pers;
    auto grid = func->getAttrOfType<GridAttr>(kGridAttr);
    if (!grid || !canWalkTilesPersistently(func))
      return func.emitError() << "a kernel marked " << tgpu::kPersistentAttr
                              << " whose grid its programs cannot walk";
    pers.gx = grid.axis(0);
    pers.gy = grid.axis(1);
    if (grid.getAxes().size() > 2 && !grid.axis(2).isLiteral(1))
      pers.gz = grid.axis(2);
    if (auto cl = func->getAttrOfType<IntegerAttr>(kClusterAttr))
      pers.cluster = std::max<int64_t>(1, cl.getInt());
    if (auto sk = func->getAttrOfType<IntegerAttr>(kStreamKAttr))
      pers.streamK = sk.getInt();
    pers.blocksPerSM = tile::getBlocksPerSM(func);
    if (auto sched =
            func->getAttrOfType<TileSchedulerAttr>(tgpu::kPersistentAttr))
      pers.scheduler = sched.getValue();
    // A CTA pair's MMAs: only the first CTA's MMA thread issues them.
    bool pairMMA = func->hasAttr(tgpu::kCtaGroupAttr);
    Region *load = ws.getRegionOf(tgpu::PartitionRole::Load);
    Region *compute = ws.getRegionOf(tgpu::PartitionRole::Compute);
    Region *mma = ws.getRegionOf(tgpu::PartitionRole::MMA);
    if (ws.getPartitions().size() != (mma ? 3u : 2u) || !load || !compute)
      return ws.emitError() << "the persistent tile loop takes a load and a "
                               "compute partition (and on sm_100a an MMA "
                               "partition)";
    int copies = ws.getPartition(compute->getRegionNumber()).getCopies();
    if (pers.streamK > 1 &&
        (copies > 1 || pers.cluster > 1 || pers.gz || pers.blocksPerSM > 1))
      return func.emitError()
             << "a stream-K kernel (" << kStreamKAttr
             << ") with ping-pong consumers, clusters, a z grid axis or "
                "several programs an SM";
    Block *producer = &load->front();
    Block *consumer = &compute->front();
    scf::ForOp pCounter = counterLoop(producer);
    scf::ForOp cCounter = counterLoop(consumer);
    scf::ForOp mCounter = mma ? counterLoop(&mma->front()) : scf::ForOp();
    if (!pCounter || (!cCounter && !mma) || (mma && !mCounter))
      return ws.emitError() << "a warp-specialized region without a channel "
                               "use counter to run on across tiles";
    if (mma && (copies > 1 || pers.streamK > 1))
      return func.emitError() << "sm_100a's MMA partition walks tiles with "
                                 "one compute copy and whole tiles";
    if (pers.launchControl() && (copies > 1 || pers.streamK > 1))
      return func.emitError() << "launch control takes whole tiles and one "
                                 "compute copy";
    if (pers.dynamic() && (copies > 1 || pers.streamK > 1 || pers.cluster > 1 ||
                         func->hasAttr(kSemaphoresAttr)))
      return func.emitError()
             << "the dynamic tile scheduler takes whole tiles, one compute "
                "copy, no cluster and a kernel without semaphores";
    if (pers.scheduler != TileScheduler::Static) {
      // Two responses; every warp of every region (of every CTA of the
      // cluster) releases one. The barriers are set up before the cluster
      // synchronizes (tile-cluster-multicast's cluster_sync), as the other
      // CTAs arrive on them.
      MLIRContext *ctx = func.getContext();
      Operation *before = ws;
      if (auto sync = dyn_cast_or_null<tgpu::ClusterSyncOp>(ws->getPrevNode()))
        before = sync;
      OpBuilder rb(before);
      Location loc = ws.getLoc();
      int64_t warps = 0;
      for (unsigned i = 0; i < ws.getPartitions().size(); ++i)
        warps += ws.getPartition(i).getWarps() * ws.getPartition(i).getCopies();
      warps *= pers.cluster;
      auto bars = tgpu::BarriersType::get(ctx, 2);
      Responses resp{
          tgpu::AllocOp::create(rb, loc, tgpu::launchControlResponses(ctx, 2)),
          tgpu::BarriersOp::create(rb, loc, bars, 1),
          tgpu::BarriersOp::create(rb, loc, bars, warps), Value()};
      if (pers.dynamic()) {
        // The counter and the programs done: two words of semaphores.
        auto i32 = rb.getI32Type();
        auto type = TensorViewType::get(ctx, {ShapedType::kDynamic}, i32, {1});
        resp.counter = WorkspaceOp::create(
            rb, loc, type, /*semaphores=*/true,
            ValueRange{arith::ConstantIntOp::create(rb, loc, i32, 2)},
            arith::ConstantIntOp::create(rb, loc, rb.getI64Type(), 0));
        func->setAttr(kSemaphoresAttr, GridExprAttr::literal(ctx, 8));
      }
      // The load region asks for the next tile.
      if (failed(wrapLaunchControl(func, pers, resp, producer,
                                   OpBuilder::atBlockBegin(producer),
                                   pCounter, /*scheduler=*/true)) ||
          (mma && failed(wrapLaunchControl(
                      func, pers, resp, &mma->front(),
                      OpBuilder::atBlockBegin(&mma->front()), mCounter,
                      false, pairMMA))) ||
          failed(wrapLaunchControl(func, pers, resp, consumer,
                                   afterBuffers(consumer), cCounter, false)))
        return failure();
      func->setAttr(kGridAttr, pers.grid());
      return success();
    }
    if (failed(wrapProducer(func, pers, producer, pCounter)))
      return failure();
    if (mma &&
        failed(wrapProducer(func, pers, &mma->front(), mCounter, pairMMA)))
      return failure();
    if (copies > 1) {
      if (failed(buildPingPong(func, pers, consumer, cCounter)))
        return failure();
    } else if (failed(wrapCooperative(func, pers, consumer, cCounter))) {
      return failure();
    }
    func->setAttr(kGridAttr, pers.grid());
    return success();
  }

  /// The producer's code in a tile loop, its counter running on.
  LogicalResult wrapProducer(func::FuncOp func, Persistent &pers,
                             Block *producer, scf::ForOp counter,
                             bool leaderOnly = false) {
    Location loc = counter.getLoc();
    Value once = onceIndex(producer);
    OpBuilder pb = OpBuilder::atBlockBegin(producer);
    Value ordinal;
    auto [loop, ids] = pers.wrap(pb, loc, func, {}, 1, nullptr,
                                 once ? &ordinal : nullptr);
    return finish(loop, ids, producer, producer->end(), counter, once,
                  loop.getRegionIterArgs()[0], ordinal, leaderOnly);
  }

  /// A region's code in the launch-control tile loop (Persistent::
  /// wrapLaunchControl) at `b`, its counter (if it has one) running on.
  LogicalResult wrapLaunchControl(func::FuncOp func, Persistent &pers,
                                  const Responses &resp, Block *block,
                                  OpBuilder b, scf::ForOp counter,
                                  bool scheduler, bool leaderOnly = false) {
    Location loc = counter ? counter.getLoc() : block->getParentOp()->getLoc();
    Value once = onceIndex(block);
    LaunchControlLoop tile = pers.wrapLaunchControl(b, loc, func, resp,
                                                    scheduler);
    Block *body = tile.loop.getAfterBody();
    Value after =
        intoTileLoop(tile.loop, body, tile.ids, block, tileCodeEnd(block),
                     counter, once, body->getArgument(2), tile.ordinal,
                     leaderOnly);
    if (!after)
      return failure();
    OpBuilder yb = OpBuilder::atBlockEnd(body);
    pers.nextLaunchControlTile(yb, loc, tile, resp, after, scheduler);
    // The scheduler's last claim is done when its loop ends.
    if (pers.dynamic() && scheduler) {
      OpBuilder ab(tile.loop->getContext());
      ab.setInsertionPointAfter(tile.loop);
      tgpu::ReleaseTileCounterOp::create(ab, loc, resp.counter);
    }
    return success();
  }

  /// Moves the ops of `block` after the tile loop `loop`, up to `end`,
  /// into its `body` (moveIntoTileLoop), the counter of `counter` starting
  /// at `start`, the tiles copied once being use `ordinal`. Returns the
  /// counter after the region's loop (`start` where the region has no loop
  /// of channel uses and only counts its tiles), null after an error.
  static Value intoTileLoop(Operation *loop, Block *body,
                            const TileIds &ids, Block *block,
                            Block::iterator end, scf::ForOp counter,
                            Value once, Value start, Value ordinal,
                            bool leaderOnly = false) {
    Operation *before = body->empty() ? nullptr : &body->back();
    moveIntoTileLoop(loop, body, ids, block, end);
    Value after = counter ? atTopLevel(counter.getResults().back(), body)
                          : start;
    if (!after) {
      counter.emitError() << "the use counter does not leave the tile's code";
      return {};
    }
    if (counter)
      replaceStart(counter.getInitArgs().back(), start);
    if (once && ordinal)
      replaceStart(once, ordinal);
    if (leaderOnly)
      return inLeader(body, before, after, start);
    return after;
  }

  /// The ops of `body` after `before` (all if null) in an `scf.if` that
  /// only the cluster's first CTA runs (a CTA pair's MMA thread: the
  /// leader issues the pair's MMAs, the other CTA's MMA warp only walks the
  /// tiles), yielding the counter `after` (`start` in the other CTA).
  /// Returns the if's counter, null if another value leaves those ops.
  static Value inLeader(Block *body, Operation *before, Value after,
                        Value start) {
    auto first = before ? std::next(Block::iterator(before)) : body->begin();
    if (first == body->end())
      return after;
    Location loc = first->getLoc();
    OpBuilder b(body, body->end());
    Value rank = tgpu::ClusterRankOp::create(b, loc, b.getI32Type());
    Value leader = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, rank,
        arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0));
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{after.getType()}, leader,
                                  /*withElseRegion=*/true);
    Block *then = ifOp.thenBlock();
    then->getOperations().splice(then->end(), body->getOperations(), first,
                                 Block::iterator(rank.getDefiningOp()));
    OpBuilder tb = OpBuilder::atBlockEnd(then);
    scf::YieldOp::create(tb, loc, after);
    OpBuilder eb = OpBuilder::atBlockEnd(ifOp.elseBlock());
    scf::YieldOp::create(eb, loc, start);
    for (Operation &op : *then)
      for (Value r : op.getResults())
        for (Operation *user : r.getUsers())
          if (!ifOp->isAncestor(user)) {
            op.emitError() << "a value of the CTA pair's MMA code leaves it";
            return {};
          }
    return ifOp.getResult(0);
  }

  /// Moves the ops of `block` after the tile loop, up to `end`, into it
  /// (moveIntoTileLoop), the counter of `counter` starting at `start`, the
  /// tiles copied once being use `ordinal`; the tile loop yields the
  /// counter after the region's loop.
  LogicalResult finish(scf::ForOp loop, const TileIds &ids,
                       Block *block, Block::iterator end, scf::ForOp counter,
                       Value once, Value start, Value ordinal,
                       bool leaderOnly = false) {
    Block *body = loop.getBody();
    Value after = intoTileLoop(loop, body, ids, block, end, counter, once,
                               start, ordinal, leaderOnly);
    if (!after)
      return failure();
    OpBuilder yb = OpBuilder::atBlockEnd(body);
    scf::YieldOp::create(yb, loop.getLoc(), after);
    return success();
  }

  /// Where the consumer's tile loop goes: after its buffers (each copy its
  /// own, allocated once).
  static OpBuilder afterBuffers(Block *consumer) {
    auto it = consumer->begin();
    while (it != consumer->end() && isa<tgpu::AllocOp>(*it))
      ++it;
    return OpBuilder(consumer, it);
  }

  /// The end of the consumer's per-tile code: all but a trailing wait for
  /// the TMA stores, which ends the program.
  static Block::iterator tileCodeEnd(Block *consumer) {
    auto end = consumer->end();
    if (!consumer->empty() && isa<tgpu::TMAStoreWaitOp>(consumer->back()))
      end = std::prev(end);
    return end;
  }

  LogicalResult wrapCooperative(func::FuncOp func, Persistent &pers,
                                Block *consumer, scf::ForOp counter) {
    Location loc = counter ? counter.getLoc() : consumer->getParentOp()->getLoc();
    Value once = onceIndex(consumer);
    OpBuilder cb = afterBuffers(consumer);
    Value ordinal;
    auto [loop, ids] = pers.wrap(cb, loc, func, {}, 1, nullptr,
                                 once ? &ordinal : nullptr);
    return finish(loop, ids, consumer, tileCodeEnd(consumer), counter, once,
                  loop.getRegionIterArgs()[0], ordinal);
  }

  /// The named-barrier groups of the ping-pong turns, a barrier a copy
  /// (tile-allocate-named-barriers gives them ids).
  static constexpr llvm::StringLiteral kMmaTurn = "pingpong_mma",
                                       kEpilogueTurn = "pingpong_epilogue";

  /// The ping-pong schedule (see the file comment).
  LogicalResult buildPingPong(func::FuncOp func, Persistent &pers,
                              Block *consumer, scf::ForOp counter) {
    Location loc = counter.getLoc();
    Value once = onceIndex(consumer);
    OpBuilder cb = afterBuffers(consumer);
    Value copy = tgpu::ConsumerIndexOp::create(cb, loc, cb.getI32Type());
    Value count;
    auto [loop, ids] = pers.wrap(cb, loc, func, copy, 2, &count);
    Block *body = loop.getBody();
    moveIntoTileLoop(loop, body, ids, consumer, tileCodeEnd(consumer));
    // The main loop's part of the tile: the op holding the counter's loop,
    // its condition and the wait for the tiles copied once before it. (The
    // copy's counter at a tile is computed from the tile's index, so the
    // tile loop carries the copy's tile count instead.)
    Operation *guard = body->findAncestorOpInBlock(*counter);
    if (!guard)
      return counter.emitError() << "the use counter's loop is not in the "
                                    "tile's code";
    Operation *head = guard;
    if (auto ifOp = dyn_cast<scf::IfOp>(guard);
        ifOp && ifOp.getCondition().getDefiningOp() == guard->getPrevNode())
      head = guard->getPrevNode();
    if (auto w = dyn_cast_or_null<tgpu::ChannelWaitOp>(head->getPrevNode());
        w && w.getIndex() == once)
      head = w;
    // m: the copy's tiles so far; g = 2m + c: the program's tile index.
    Value m = loop.getRegionIterArgs()[0];
    OpBuilder lb(head);
    auto cst = [&](int64_t v) {
      return arith::ConstantIntOp::create(lb, loc, lb.getI32Type(), v);
    };
    Value two = cst(2), one = cst(1), zero = cst(0);
    Value g = arith::AddIOp::create(lb, loc,
                                    arith::MulIOp::create(lb, loc, m, two), copy);
    Value span = arith::SubIOp::create(lb, loc, counter.getUpperBound(),
                                       counter.getLowerBound());
    Value iters = arith::MaxSIOp::create(
        lb, loc, arith::CeilDivSIOp::create(lb, loc, span, counter.getStep()),
        zero);
    Value iStart = arith::MulIOp::create(lb, loc, g, iters);
    Value first = arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::eq, g,
                                        zero);
    Value notFirst = arith::XOrIOp::create(
        lb, loc, first, arith::ConstantIntOp::create(lb, loc, lb.getI1Type(), 1));
    Value hasNext = arith::CmpIOp::create(
        lb, loc, arith::CmpIPredicate::slt,
        arith::AddIOp::create(lb, loc, g, one), count);
    Value other = arith::SubIOp::create(lb, loc, one, copy);
    auto turn = [&](OpBuilder &ob, Value cond, StringRef group, Value who,
                    bool wait) {
      auto ifOp = scf::IfOp::create(ob, loc, TypeRange{}, cond, false);
      OpBuilder ib = OpBuilder::atBlockBegin(ifOp.thenBlock());
      Value id = tgpu::NamedBarrierIdOp::create(ib, loc, ib.getI32Type(),
                                                group, 2, who);
      int32_t threads = 2 * 32 * getNumWarps(func);
      if (wait)
        tgpu::NamedBarrierWaitOp::create(ib, loc, id, threads);
      else
        tgpu::NamedBarrierArriveOp::create(ib, loc, id, threads);
    };
    // Wait for the main-loop turn, multiply, pass the turn on.
    turn(lb, notFirst, kMmaTurn, copy, true);
    replaceStart(counter.getInitArgs().back(), iStart);
    if (once)
      replaceStart(once, g);
    OpBuilder ab(guard->getContext());
    ab.setInsertionPointAfter(guard);
    turn(ab, hasNext, kMmaTurn, other, false);
    // The same for the epilogue (the rest of the tile's code).
    turn(ab, notFirst, kEpilogueTurn, copy, true);
    OpBuilder yb = OpBuilder::atBlockEnd(body);
    turn(yb, hasNext, kEpilogueTurn, other, false);
    scf::YieldOp::create(
        yb, loc, ValueRange{arith::AddIOp::create(
                     yb, loc, m, arith::ConstantIntOp::create(
                                     yb, loc, yb.getI32Type(), 1))});
    return success();
  }
};

} // namespace
