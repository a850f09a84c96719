//===- ProfileOpsToLLVM.cpp - the profiler's records ----------------------===//
//
// A kernel instrumented by tile-profile takes the address of its profile
// buffer and the records a warp group has room for as its last parameters
// (address 0: record nothing; docs/BUNDLE.md, "Profile buffer"); thread 0
// of the first CTA writes the buffer's header. One thread of each warp
// group records (lane 0 of the group's warp G mod 4): the kernel's entry computes the group's slice of the buffer and
// writes the slice header's start (SM id, globaltimer, clock64). Records
// come in frames (tile-profile's `frame` / `slot`): each slot reads the
// 32-bit clock once (every thread: one instruction), and after a frame's
// last record the recorder's warp alone (a warp-uniform branch) advances
// the counters and stores the frame id, the arguments and the clocks with
// predicated vector stores while the slice has room. Each return writes
// the records (16-byte units) the group attempted and stored, and the end
// times. The counters are local variables (SROA makes them registers): no
// shared memory, no atomics.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "tilec/Dialect/TGPU/TGPUDialect.h"
#include "tilec/Dialect/Tile/ProfileRecords.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// Bytes of the buffer's header and of each slice's header.
constexpr int64_t kHeaderBytes = 64;
constexpr int64_t kRecordBytes = 16;
/// The buffer format's version (2: records in frames).
constexpr int64_t kVersion = 2;

Value clock64(Emitter &e) {
  return NVVM::Clock64Op::create(e.b, e.loc, e.b.getI64Type());
}

/// The low and high words of an i64.
std::pair<Value, Value> words(Emitter &e, Value v) {
  Type i32 = e.b.getI32Type();
  Value lo = arith::TruncIOp::create(e.b, e.loc, i32, v);
  Value hi = arith::TruncIOp::create(
      e.b, e.loc, i32, arith::ShRUIOp::create(e.b, e.loc, v, e.i64(32)));
  return {lo, hi};
}

/// A profiled kernel's recording state, built at its entry: whether this
/// thread's warp stores frames and whether this thread records (its
/// group's recorder, with a buffer), the records a group has room for, the
/// address (i64) of the group's slice, and the records attempted and
/// stored (local i32s).
struct ProfileState {
  Value warp, ok, capacity, slice, counter, stored;
};

int64_t frameOf(Operation *op) { return asProfileRecord(op)->frame.getInt(); }
int64_t slotOf(Operation *op) { return asProfileRecord(op)->slot.getInt(); }

/// Reads the clock at the first record of each slot of frame `id` (its
/// records `ops`, in program order) and stores the frame after the last:
/// words [id, arguments of its begins..., clocks...] padded with zeros to
/// 16-byte records, all or none of them (while the slice has room), then
/// erases the records.
void lowerFrame(const ProfileState &s, int64_t id, ArrayRef<Operation *> ops) {
  SmallVector<Value> clocks, args;
  for (Operation *op : ops) {
    if (clocks.size() == size_t(slotOf(op))) {
      OpBuilder b(op);
      clocks.push_back(
          NVVM::ClockOp::create(b, op->getLoc(), b.getI32Type()));
    }
    if (auto begin = dyn_cast<ProfileBeginOp>(op); begin && begin.getArg())
      args.push_back(begin.getArg());
  }
  // Only the recorder's warp stores (a warp-uniform branch): the other
  // warps of the group pay one branch a frame.
  OpBuilder b(ops.back());
  b.setInsertionPointAfter(ops.back());
  auto ifOp = scf::IfOp::create(b, ops.back()->getLoc(), s.warp,
                                /*withElseRegion=*/false);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  Emitter e{b, ops.back()->getLoc()};
  SmallVector<Value> words{e.i32(id)};
  words.append(args);
  words.append(clocks);
  while (words.size() % 4)
    words.push_back(e.i32(0));
  int64_t records = words.size() / 4;
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Value start = LLVM::LoadOp::create(b, e.loc, i32, s.counter);
  Value end = e.add(start, e.i32(records));
  LLVM::StoreOp::create(b, e.loc, end, s.counter);
  Value room = arith::AndIOp::create(
      b, e.loc, s.ok,
      arith::CmpIOp::create(b, e.loc, arith::CmpIPredicate::ule, end,
                            s.capacity));
  // Records stored: frames are stored while they fit, so once one does
  // not, none after it does.
  Value stored = LLVM::LoadOp::create(b, e.loc, i32, s.stored);
  LLVM::StoreOp::create(
      b, e.loc, arith::SelectOp::create(b, e.loc, room, end, stored), s.stored);
  Value pred = arith::ExtUIOp::create(b, e.loc, i32, room);
  Value addr = e.add(
      s.slice, e.add(e.i64(kHeaderBytes),
                     e.mul(arith::ExtUIOp::create(b, e.loc, i64, start),
                           e.i64(kRecordBytes))));
  for (int64_t r = 0; r < records; ++r)
    predicatedStore(e, e.add(addr, e.i64(r * kRecordBytes)), pred,
                    ArrayRef(words).slice(4 * r, 4));
  for (Operation *op : ops)
    op->erase();
}

/// Stores (globaltimer, clock64) at `addr` under `pred`.
void storeTimes(Emitter &e, Value addr, Value pred) {
  Value gt = NVVM::GlobalTimerOp::create(e.b, e.loc, e.b.getI64Type());
  auto [gtLo, gtHi] = words(e, gt);
  auto [clkLo, clkHi] = words(e, clock64(e));
  predicatedStore(e, addr, pred, {gtLo, gtHi, clkLo, clkHi});
}

} // namespace

LogicalResult tilec::verifyProfileRecords(func::FuncOp func) {
  auto scopes = func->getAttrOfType<ArrayAttr>(kProfileScopesAttr);
  // Per frame and block (lowerWarpSpecialize clones the region of a
  // partition with copies, records included: each clone has the frame):
  // its last record and slot.
  struct Seen {
    Operation *last;
    int64_t slot;
  };
  llvm::DenseMap<std::pair<int64_t, Block *>, Seen> frames;
  WalkResult r = func.walk([&](Operation *op) {
    std::optional<ProfileRecord> rec = asProfileRecord(op);
    if (!rec)
      return WalkResult::advance();
    StringAttr scope = rec->scope;
    auto fail = [&](const Twine &msg) {
      op->emitOpError() << msg;
      return WalkResult::interrupt();
    };
    if (!scopes)
      return fail("is in a kernel tile-profile did not instrument (no "
                  "tile.profile_scopes)");
    if (!llvm::is_contained(scopes, scope))
      return fail("scope '" + scope.getValue() +
                  "' is not in the kernel's tile.profile_scopes");
    if (!rec->frame)
      return fail("has no frame (tile-profile assigns them)");
    int64_t frame = rec->frame.getInt(), slot = rec->slot.getInt();
    auto [it, first] =
        frames.try_emplace({frame, op->getBlock()}, Seen{op, 0});
    Seen &seen = it->second;
    if (first ? slot != 0
              : (slot != seen.slot && slot != seen.slot + 1) ||
                    (slot == seen.slot) != (seen.last == op->getPrevNode()))
      return fail("breaks frame " + Twine(frame) +
                  ": a frame's records are in one block, its slots count "
                  "from 0 and a slot's records are adjacent ops");
    seen.last = op;
    seen.slot = slot;
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

LogicalResult tilec::lowerProfiledKernel(func::FuncOp func) {
  MLIRContext *ctx = func.getContext();
  if (failed(func.insertArgument(func.getNumArguments(),
                                 LLVM::LLVMPointerType::get(ctx, 1), {},
                                 func.getLoc())) ||
      failed(func.insertArgument(func.getNumArguments(),
                                 IntegerType::get(ctx, 32), {}, func.getLoc())))
    return failure();
  Value buffer = func.getArgument(func.getNumArguments() - 2);
  OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
  Emitter e{b, func.getLoc()};
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  ProfileState s;
  Value base = LLVM::PtrToIntOp::create(b, e.loc, i64, buffer);
  Value hasBuffer =
      arith::CmpIOp::create(b, e.loc, arith::CmpIPredicate::ne, base, e.i64(0));
  // The recorder of warp group G: lane 0 of its warp G mod 4 (of the
  // warps the group has), so that the recording warps of a CTA's groups
  // sit on different SM sub-partitions (warp w issues on sub-partition w
  // mod 4); s.warp: that warp, with a buffer (the warp that stores
  // frames).
  int64_t warps = tgpu::getLaunchWarps(func);
  Value tid = NVVM::ThreadIdXOp::create(b, e.loc, i32);
  Value group = arith::ShRUIOp::create(b, e.loc, tid, e.i32(7));
  Value want = e.andI(group, e.i32(3));
  if (int64_t last = warps % 4)  // a last group of fewer than 4 warps
    want = arith::SelectOp::create(
        b, e.loc, e.eq(group, e.i32(warps / 4)),
        arith::RemUIOp::create(b, e.loc, group, e.i32(last)), want);
  Value warpInGroup = e.andI(arith::ShRUIOp::create(b, e.loc, tid, e.i32(5)),
                             e.i32(3));
  s.warp = arith::AndIOp::create(b, e.loc, hasBuffer, e.eq(warpInGroup, want));
  s.ok = arith::AndIOp::create(b, e.loc, s.warp,
                               e.eq(e.andI(tid, e.i32(31)), e.i32(0)));
  Value okWord = arith::ExtUIOp::create(b, e.loc, i32, s.ok);
  // Records a group (the last parameter), 0 without a buffer.
  s.capacity = arith::SelectOp::create(b, e.loc, hasBuffer,
                                       func.getArguments().back(), e.i32(0));
  // The group's slice: CTA (linear) * groups + the warp group.
  int64_t groups = (warps + 3) / 4;
  auto ext = [&](Value v) { return arith::ExtUIOp::create(b, e.loc, i64, v); };
  Value cta = e.add(
      NVVM::BlockIdXOp::create(b, e.loc, i32),
      e.mul(NVVM::GridDimXOp::create(b, e.loc, i32),
            e.add(NVVM::BlockIdYOp::create(b, e.loc, i32),
                  e.mul(NVVM::GridDimYOp::create(b, e.loc, i32),
                        NVVM::BlockIdZOp::create(b, e.loc, i32)))));
  Value slot = e.add(e.mul(ext(cta), e.i64(groups)), ext(group));
  Value sliceBytes = e.add(e.i64(kHeaderBytes),
                           e.mul(ext(s.capacity), e.i64(kRecordBytes)));
  s.slice = e.add(base, e.add(e.i64(kHeaderBytes), e.mul(slot, sliceBytes)));
  // The buffer header (version, records a group, groups), by thread 0 of
  // the first CTA.
  Value first = arith::AndIOp::create(b, e.loc, hasBuffer,
                                      e.eq(e.add(cta, tid), e.i32(0)));
  predicatedStore(e, base, arith::ExtUIOp::create(b, e.loc, i32, first),
                  {e.i32(kVersion), s.capacity, e.i32(groups), e.i32(0)});
  for (Value *counter : {&s.counter, &s.stored}) {
    *counter = LLVM::AllocaOp::create(
        b, e.loc, LLVM::LLVMPointerType::get(ctx), i32, e.i32(1));
    LLVM::StoreOp::create(b, e.loc, e.i32(0), *counter);
  }
  // Slice header: [0] records attempted, [4] SM id, [8] records stored,
  // [16] globaltimer and clock64 at the start, [32] at the end.
  predicatedStore(e, e.add(s.slice, e.i64(4)), okWord,
                  {Value(NVVM::SmIdOp::create(b, e.loc, i32))});
  storeTimes(e, e.add(s.slice, e.i64(16)), okWord);
  func.walk([&](func::ReturnOp ret) {
    OpBuilder rb(ret);
    Emitter re{rb, ret.getLoc()};
    Value count = LLVM::LoadOp::create(rb, re.loc, i32, s.counter);
    predicatedStore(re, s.slice, okWord, {count});
    Value stored = LLVM::LoadOp::create(rb, re.loc, i32, s.stored);
    predicatedStore(re, re.add(s.slice, re.i64(8)), okWord, {stored});
    storeTimes(re, re.add(s.slice, re.i64(32)), okWord);
  });
  // The frames, each in program order (by block: a partition's copies
  // each have theirs).
  llvm::MapVector<std::pair<int64_t, Block *>, SmallVector<Operation *>> frames;
  func.walk([&](Operation *op) {
    if (isProfileRecord(op))
      frames[{frameOf(op), op->getBlock()}].push_back(op);
  });
  for (auto &[key, ops] : frames)
    lowerFrame(s, key.first, ops);
  return success();
}
