//===- MemoryOpsToLLVM.cpp - tile.load / tile.store to predicated PTX -----===//
//
// Each register's element address is base + sum((offset + coord) * stride).
// Out-of-bounds elements are masked: loads give the padding value, stores
// are dropped. When the layout gives a thread runs of consecutive elements
// along the contiguous dim, a uniform run-time check (unit inner stride,
// aligned base, offsets, extents and strides) selects a path with 16-byte
// (or narrower) vector accesses; otherwise each element is accessed alone.
// A masked access is vectorized where AxisInfo proves the mask constant
// over each vector (a row mask broadcast along the rows), each vector under
// its first element's mask.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "tilec/Dialect/TGPU/TGPUDialect.h"
#include "tilec/Dialect/Tile/AxisInfo.h"
#include "tilec/Layout/BankConflicts.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// Shared by loads and stores: addresses and masks of the elements a thread
/// accesses, `vec` elements at a time.
struct Access {
  Emitter &e;
  ViewValues view;
  SmallVector<Value> offsets; // i64
  LinearLayout layout;
  Type elementType;
  int contigDim;
  ValueRange mask; // i1 per register, or empty
  bool inBounds;   // the op's promise: no checks (tile.load's in_bounds)
  // Along contigDim the mask comes in runs of this many equal values, each
  // starting at a multiple of it (AxisInfo's constancy; 1 if unknown).
  int64_t maskConstancy = 1;

  /// The largest vector (elements) the layout allows along contigDim; with
  /// a mask, no longer than its runs of equal values (a row mask broadcast
  /// along the rows lets whole rows go as vectors, each under its first
  /// element's mask).
  int64_t maxVector() const {
    int64_t bytes = storageBytes(elementType);
    int64_t vec = std::min<int64_t>(layout.getContiguity(contigDim),
                                    std::max<int64_t>(1, 16 / bytes));
    if (!mask.empty())
      vec = std::min(vec, maskConstancy);
    return vec;
  }

  /// Uniform check that `vec`-wide accesses are aligned and never straddle
  /// the edge of the view.
  Value vectorOk(int64_t vec) {
    Value ok = vectorViewOk(e, view, contigDim, vec, elementType);
    return e.andI(ok, e.eq(e.andI(offsets[contigDim], e.i64(vec - 1)),
                           e.i64(0)));
  }

  /// Address (as i64) and in-bounds predicate (i32; null for an in_bounds
  /// access) of register `reg`.
  std::pair<Value, Value> element(ThreadCoords &coords, int64_t reg) {
    auto index = [&](unsigned d) {
      Value c = arith::ExtUIOp::create(e.b, e.loc, e.b.getI64Type(),
                                       coords.get(reg, d));
      return e.add(offsets[d], c);
    };
    auto [addr, pred] = view.element(e, index, elementType,
                                     mask.empty() ? Value() : mask[reg]);
    return {addr, inBounds ? Value() : pred};
  }
};

/// The addresses of one path's elements. Where no register's constant
/// coordinates share a bit with the lane and warp part (blocked layouts),
/// a thread's address is computed once (the offsets and its lane and warp
/// coordinates times the strides) and each register adds its constant
/// coordinates times the strides: uniform values, and on the vector path
/// (the contiguous dim's stride checked to be 1) immediates along that
/// dim. A thread then holds one address for the whole tile, not one a
/// register (the attention twins' plain loads spilled them). Otherwise
/// element by element (Access::element).
class Addresses {
public:
  /// `unitStride`: the contiguous dim's stride was checked to be 1 (a
  /// vector path checked it too).
  Addresses(Access &acc, ThreadCoords &coords, int64_t vec,
            bool unitStride = false)
      : acc(acc), coords(coords) {
    Emitter &e = acc.e;
    unsigned rank = acc.view.sizes.size();
    const LinearLayout &l = acc.layout;
    split = rank > 0;
    for (int64_t r = 0; r < l.getNumRegisters() && split; ++r)
      for (unsigned d = 0; d < rank; ++d)
        split &= (coords.constant(r)[d] & coords.threadBits(d)) == 0;
    if (!split)
      return;
    strides = acc.view.strides;
    if ((vec > 1 || unitStride) && !acc.inBounds)
      strides[acc.contigDim] = e.i64(1); // (the path checked it)
    for (unsigned d = 0; d < rank; ++d) {
      Value t = e.add(acc.offsets[d],
                      arith::ExtUIOp::create(e.b, e.loc, e.b.getI64Type(),
                                             coords.threadPart(d)));
      threadIndex.push_back(t);
      Value term = e.mul(t, strides[d]);
      threadLinear = threadLinear ? e.add(threadLinear, term) : term;
    }
  }

  std::pair<Value, Value> element(int64_t reg) {
    if (!split)
      return acc.element(coords, reg);
    Emitter &e = acc.e;
    LinearLayout::Coords c = coords.constant(reg);
    Value linear = threadLinear;
    for (unsigned d = 0; d < threadIndex.size(); ++d)
      if (c[d])
        linear = e.add(linear, e.mul(e.i64(c[d]), strides[d]));
    auto index = [&](unsigned d) {
      if (!c[d])
        return threadIndex[d];
      return Value(arith::AddIOp::create(e.b, e.loc, threadIndex[d],
                                         e.i64(c[d]),
                                         arith::IntegerOverflowFlags::nsw));
    };
    auto [addr, pred] = acc.view.element(
        e, index, acc.elementType,
        acc.mask.empty() ? Value() : acc.mask[reg], linear);
    return {addr, acc.inBounds ? Value() : pred};
  }

private:
  Access &acc;
  ThreadCoords &coords;
  bool split = true;
  SmallVector<Value> strides, threadIndex;
  Value threadLinear;
};

std::string memInstr(StringRef op, int64_t bytes) {
  switch (bytes) {
  case 1:
    return (op + ".global.u8").str();
  case 2:
    return (op + ".global.u16").str();
  case 4:
    return (op + ".global.b32").str();
  case 8:
    return (op + ".global.v2.b32").str();
  default:
    return (op + ".global.v4.b32").str();
  }
}

std::string regList(int first, int count) {
  std::string s = count > 1 ? "{" : "";
  for (int i = 0; i < count; ++i)
    s += (i ? ", $" : "$") + std::to_string(first + i);
  return s + (count > 1 ? "}" : "");
}

/// The 32-bit words that fill `bytes` bytes with copies of `padding`.
SmallVector<Value> paddingWords(Emitter &e, Attribute padding, Type elt,
                                int64_t bytes) {
  APInt bits(storageBytes(elt) * 8, 0);
  if (auto f = dyn_cast_or_null<FloatAttr>(padding))
    bits = f.getValue().bitcastToAPInt();
  else if (auto i = dyn_cast_or_null<IntegerAttr>(padding))
    bits = i.getValue().zextOrTrunc(storageBytes(elt) * 8);
  bits = bits.zextOrTrunc(storageBytes(elt) * 8);
  unsigned eltBits = bits.getBitWidth();
  unsigned totalBits = std::max<unsigned>(32, bytes * 8);
  APInt all(totalBits, 0);
  for (unsigned i = 0; i * eltBits < totalBits; ++i)
    all.insertBits(bits, i * eltBits);
  SmallVector<Value> words;
  for (unsigned w = 0; w < std::max<int64_t>(1, bytes / 4); ++w)
    words.push_back(e.i32(all.extractBitsAsZExtValue(32, w * 32)));
  return words;
}

/// The access of `tile` at `offsets` into a view, vectorized along the
/// view's contiguous dim (the last dim if no stride is statically 1).
Access makeAccess(Emitter &e, TensorViewType view, ValueRange viewValues,
                  ArrayRef<ValueRange> offsetValues, Type tile,
                  Value maskOp, ValueRange mask, bool inBounds) {
  auto tt = cast<RankedTensorType>(tile);
  SmallVector<Value> offsets;
  for (ValueRange o : offsetValues)
    offsets.push_back(e.sext64(o.front()));
  int cd = view.getContiguousDim() >= 0 ? view.getContiguousDim()
                                        : tt.getRank() - 1;
  Access acc{e, ViewValues(view, viewValues), offsets, getLayout(tt),
             tt.getElementType(), cd, mask, inBounds};
  if (maskOp)
    acc.maskConstancy = AxisInfo::get(maskOp).constancy[cd];
  return acc;
}

/// The widest vector the access allows under its uniform run-time check
/// (an in_bounds access needs none).
SmallVector<Value>
emitAccess(ConversionPatternRewriter &rewriter, Access &acc, TypeRange types,
           function_ref<SmallVector<Value>(int64_t)> path) {
  int64_t vec = acc.maxVector();
  if (acc.inBounds)
    return path(vec);
  return tilec::emitVectorOrScalar(rewriter, acc.e.loc, vec,
                            vec > 1 ? acc.vectorOk(vec) : Value(), types,
                            path);
}

struct LoadOpLowering : public OpConversionPattern<LoadOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(LoadOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Emitter e{rewriter, loc};
    Access acc = makeAccess(e, op.getTensor().getType(), adaptor.getTensor(),
                            adaptor.getOffsets(), op.getType(), op.getMask(),
                            op.getMask() ? adaptor.getMask() : ValueRange{},
                            op.getInBounds());
    Type elt = acc.elementType;
    int64_t numRegs = acc.layout.getNumRegisters();

    auto emitPath = [&](int64_t vec) {
      SmallVector<Value> results;
      ThreadCoords coords(e, acc.layout);
      Addresses at(acc, coords, vec);
      for (int64_t r = 0; r < numRegs; r += vec) {
        auto [addr, pred] = at.element(r);
        results.append(
            predicatedLoad(e, addr, pred, elt, vec, op.getPaddingAttr()));
      }
      return results;
    };

    SmallVector<Type> types(numRegs, elt);
    SmallVector<Value> results =
        emitAccess(rewriter, acc, types, emitPath);
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

/// `red.global.add` of f32 elements (one, or a vector of 2 or 4) at
/// `addr` where `pred` (i32, null: always) is set.
void predicatedReduceAdd(Emitter &e, Value addr, Value pred,
                         ValueRange elements) {
  int n = elements.size();
  std::string instr = "red.relaxed.gpu.global.add" +
                      std::string(n > 1 ? ".v" + std::to_string(n) : "") +
                      ".f32 [$1], " + regList(2, n) + ";";
  std::string constraints = "r,l";
  for (int i = 0; i < n; ++i)
    constraints += ",f";
  SmallVector<Value> operands{pred ? pred : e.i32(1), addr};
  operands.append(elements.begin(), elements.end());
  e.ptx("{\n.reg .pred p;\nsetp.ne.b32 p, $0, 0;\n@p " + instr + "\n}",
        constraints, {}, operands, /*sideEffects=*/true);
}

struct StoreOpLowering : public OpConversionPattern<StoreOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(StoreOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Emitter e{rewriter, loc};
    Access acc = makeAccess(e, op.getTensor().getType(), adaptor.getTensor(),
                            adaptor.getOffsets(), op.getValue().getType(),
                            op.getMask(),
                            op.getMask() ? adaptor.getMask() : ValueRange{},
                            op.getInBounds());
    ValueRange values = adaptor.getValue();
    int64_t numRegs = acc.layout.getNumRegisters();
    // A reducing store adds each element once: only the thread and the
    // register that own it (a broadcast layout holds copies).
    std::optional<Owners> owners;
    if (op.getReduce())
      owners.emplace(e, acc.layout);

    auto emitPath = [&](int64_t vec) {
      ThreadCoords coords(e, acc.layout);
      Addresses at(acc, coords, vec);
      for (int64_t r = 0; r < numRegs; r += vec) {
        if (owners && owners->first[r] != r)
          continue;
        auto [addr, pred] = at.element(r);
        if (!owners) {
          predicatedStore(e, addr, pred, values.slice(r, vec));
          continue;
        }
        if (owners->thread)
          pred = owners->restrict(e, pred ? pred : e.i32(1));
        predicatedReduceAdd(e, addr, pred, values.slice(r, vec));
      }
      return SmallVector<Value>();
    };

    if (!owners || acc.inBounds || op.getMask()) {
      emitAccess(rewriter, acc, TypeRange{}, emitPath);
      rewriter.eraseOp(op);
      return success();
    }
    // A reduction of a tile wholly inside the view (in a loop over blocks,
    // every block but the last) adds with no per-element checks: uniform
    // checks pick that path.
    auto shape = cast<RankedTensorType>(op.getValue().getType()).getShape();
    // Per dim: offset + extent <= size, offset >= 0 (compared unsigned,
    // as the element checks are: a negative offset is out).
    Value inside;
    for (auto [d, extent] : llvm::enumerate(shape)) {
      Value size = acc.view.sizes[d];
      Value last = e.add(acc.offsets[d], e.i64(extent - 1));
      Value in = e.andI(e.ult(last, size),
                        e.ult(acc.offsets[d], size));
      inside = inside ? e.andI(inside, in) : in;
    }
    auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange{}, inside,
                                  /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(ifOp.thenBlock());
      acc.inBounds = true;
      int64_t vec = acc.maxVector();
      emitVectorOrScalar(rewriter, loc, vec,
                         vec > 1 ? acc.vectorOk(vec) : Value(), TypeRange{},
                         emitPath);
      acc.inBounds = false;
      rewriter.setInsertionPointToStart(ifOp.elseBlock());
      emitAccess(rewriter, acc, TypeRange{}, emitPath);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// tgpu.thread_copy, in chunks of a few registers: a run-time loop (not
/// unrolled) over the high register bits, each iteration loading its
/// chunk and storing it into the slot at once. A thread then holds a
/// chunk of the tile and one address, not all of it: a 64x256 bf16 B
/// operand is 128 elements and 16 row addresses a thread of a warpgroup,
/// which ptxas kept live (the addresses hoisted out of the producer's
/// loop) and spilled.
///
/// Uniform run-time checks of the view pick the path, each with its own
/// chunk loop: cp.async (rows 16- or 4-byte aligned), shifted words (rows
/// of unit stride at any element: bf16 rows an odd number of elements
/// apart), element loads. A chunk's coordinates are the tile offsets plus
/// the chunk bits' bases (added: they share no bit with the chunk's own
/// registers, lanes and warps, else the copy is one chunk); its slot
/// offsets are the chunk's own XOR the chunk bits' offsets (the slot
/// layout is linear).
struct ThreadCopyLowering : public OpConversionPattern<tgpu::ThreadCopyOp> {
  using OpConversionPattern::OpConversionPattern;

  /// A thread's registers in chunks of `chunk`: the layout of one chunk,
  /// the register bases that pick a chunk (none: one chunk), and the slot
  /// offset each of those adds (XOR).
  struct Chunks {
    LinearLayout inner;
    LinearLayout::Bases outer;
    SmallVector<int64_t> slotOffsets;
  };

  static Chunks split(const LinearLayout &layout, ArrayRef<int64_t> shape,
                      int64_t chunk, const SharedAccess &store) {
    unsigned rank = shape.size();
    const LinearLayout::Bases &regBases = layout.getBases(InDim::Register);
    unsigned innerBits = llvm::Log2_64(chunk);
    LinearLayout::Bases inner(regBases.begin(), regBases.begin() + innerBits);
    LinearLayout::Bases outer(regBases.begin() + innerBits, regBases.end());
    // Chunk bits add to the rest (no shared coordinate bits).
    SmallVector<int64_t> used(rank, 0), chunkUsed(rank, 0);
    for (InDim d : {InDim::Lane, InDim::Warp})
      for (auto &b : layout.getBases(d))
        for (unsigned k = 0; k < rank; ++k)
          used[k] |= b[k];
    for (auto &b : inner)
      for (unsigned k = 0; k < rank; ++k)
        used[k] |= b[k];
    bool adds = true;
    for (auto &b : outer)
      for (unsigned k = 0; k < rank; ++k) {
        adds &= (b[k] & (used[k] | chunkUsed[k])) == 0;
        chunkUsed[k] |= b[k];
      }
    if (!adds) {
      inner = regBases;
      outer.clear();
    }
    Chunks c{LinearLayout(std::vector<int64_t>(shape.begin(), shape.end()),
                          inner, layout.getBases(InDim::Lane),
                          layout.getBases(InDim::Warp)),
             outer,
             {}};
    for (unsigned k = 0; k < outer.size(); ++k)
      c.slotOffsets.push_back(
          store.toOffset
              .applyIn(InDim::Register, int64_t(1) << (inner.size() + k))
              .front());
    return c;
  }

  LogicalResult
  matchAndRewrite(tgpu::ThreadCopyOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Emitter e{rewriter, loc};
    auto tile = cast<RankedTensorType>(op.getTile());
    tgpu::SharedBufferType buf = op.getBuffer().getType();
    ArrayRef<int64_t> slotShape = buf.getSlotShape();
    LinearLayout layout = getLayout(tile);
    std::vector<int64_t> slotDims(slotShape.begin(), slotShape.end());
    LinearLayout inSlot = op.getInSlot() ? op.getInSlot()->toLayout(slotShape)
                                         : layout.reshape(slotDims);
    Type elt = tile.getElementType();
    unsigned bits = elt.getIntOrFloatBitWidth();
    auto store = analyzeSharedAccess(inSlot, buf.getSlotLayout(), bits);
    if (!store)
      return op.emitOpError() << "the slot cannot hold the tile";
    // With `in_slot` (a K-major copy), the registers the slot makes
    // contiguous (offsets 1, 2, 4, ... elements, up to 16 bytes) are the
    // store vectors wherever they are in the tile's registers: the store
    // analysis takes them first. `storeBits[j]` is the tile's register
    // bit that is the store order's bit j (the others keep their order);
    // `group` registers hold every bit moved.
    const LinearLayout::Bases &regBases = inSlot.getBases(InDim::Register);
    SmallVector<int> storeBits;
    for (unsigned j = 0; j < regBases.size(); ++j)
      storeBits.push_back(j);
    int64_t group = 1;
    if (op.getInSlot()) {
      SmallVector<int> front;
      for (int64_t off = 1; off * bits <= 128; off *= 2) {
        int found = -1;
        for (unsigned j = 0; j < regBases.size(); ++j)
          if (store->toOffset.applyIn(InDim::Register, int64_t(1) << j)
                  .front() == off)
            found = j;
        if (found < 0)
          break;
        front.push_back(found);
      }
      SmallVector<int> order(front);
      for (unsigned j = 0; j < regBases.size(); ++j)
        if (!llvm::is_contained(front, int(j)))
          order.push_back(j);
      for (int j : front)
        group = std::max<int64_t>(group, int64_t(2) << j);
      storeBits = order;
      LinearLayout::Bases permuted;
      for (int j : order)
        permuted.push_back(regBases[j]);
      store = analyzeSharedAccess(
          LinearLayout(slotDims, permuted, inSlot.getBases(InDim::Lane),
                       inSlot.getBases(InDim::Warp)),
          buf.getSlotLayout(), bits);
      if (!store)
        return op.emitOpError() << "the slot cannot hold the tile";
    }
    // The tile register that store-order register `r` is.
    auto tileRegister = [&](int64_t r) {
      int64_t t = 0;
      for (unsigned j = 0; j < storeBits.size(); ++j)
        if (r >> j & 1)
          t |= int64_t(1) << storeBits[j];
      return t;
    };
    Value slot = slotPointer(e, buf, adaptor.getBuffer().front(),
                             adaptor.getSlot().front());
    // The whole tile's access; each chunk's is it with the chunk's layout
    // and offsets.
    Access whole = makeAccess(e, op.getTensor().getType(), adaptor.getTensor(),
                              adaptor.getOffsets(), tile, Value(), ValueRange{},
                              /*inBounds=*/false);
    int64_t numRegs = layout.getNumRegisters();
    int64_t sv = store->vectorElements;
    int64_t eltBytes = storageBytes(elt);
    unsigned rank = tile.getRank();
    // A register of the chunk's slot offset (the chunk's own XOR the chunk
    // bits'). Each path computes its own offsets and coordinates: shared,
    // computed once for the whole tile, they cost the odd-row path a fifth
    // of its speed on an H100 (the tile's layout, not the chunk's, gave
    // each element an address of its own).
    ThreadCoords storeAt(e, store->toOffset);
    auto storeOffset = [&](int64_t reg, Value slotXor) {
      Value off = storeAt.get(reg, 0);
      return slotXor ? e.xorI(off, slotXor) : off;
    };

    // `body(acc, slotXor)` for each chunk of `chunk` registers.
    auto forEachChunk = [&](int64_t chunk, auto body) {
      Chunks c =
          split(layout, tile.getShape(), std::min(chunk, numRegs), *store);
      auto one = [&](Value j) {
        Access acc = whole;
        acc.layout = c.inner;
        Value slotXor;
        if (j) {
          // (The chunk's tile offsets in i32, as the op's, then widened.)
          SmallVector<Value> offs;
          for (ValueRange o : adaptor.getOffsets())
            offs.push_back(o.front());
          for (unsigned k = 0; k < c.outer.size(); ++k) {
            Value bit =
                e.andI(LLVM::LShrOp::create(e.b, loc, j, e.i32(k)), e.i32(1));
            for (unsigned d = 0; d < rank; ++d)
              if (c.outer[k][d])
                offs[d] = e.add(offs[d], e.mul(bit, e.i32(c.outer[k][d])));
            if (c.slotOffsets[k]) {
              Value o = e.mul(bit, e.i32(c.slotOffsets[k]));
              slotXor = slotXor ? e.xorI(slotXor, o) : o;
            }
          }
          for (unsigned d = 0; d < rank; ++d)
            acc.offsets[d] = e.sext64(offs[d]);
        }
        body(acc, slotXor);
      };
      if (c.outer.empty())
        return one(Value());
      auto loop =
          scf::ForOp::create(rewriter, loc, e.i32(0),
                             e.i32(int64_t(1) << c.outer.size()), e.i32(1));
      // Not unrolled: unrolled, a thread holds every chunk's registers
      // (scf-to-cf puts the annotation on the loop's latch).
      MLIRContext *ctx = rewriter.getContext();
      loop->setAttr(
          "llvm.loop_annotation",
          LLVM::LoopAnnotationAttr::get(
              ctx, {}, {}, {},
              LLVM::LoopUnrollAttr::get(ctx, rewriter.getBoolAttr(true), {}, {},
                                        {}, {}, {}, {}),
              {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}));
      OpBuilder::InsertionGuard g(rewriter);
      rewriter.setInsertionPoint(loop.getBody()->getTerminator());
      one(loop.getInductionVar());
    };

    // cp.async: global to shared without registers, zero-filled where out
    // of bounds (src-size 0); waited for once after the loop, so the
    // chunks' loads overlap.
    auto asyncCopy = [&](int64_t vec) {
      return [&, vec](Access &acc, Value slotXor) {
        ThreadCoords coords(e, acc.layout);
        Addresses at(acc, coords, vec);
        for (int64_t r = 0; r < acc.layout.getNumRegisters(); r += vec) {
          auto [addr, pred] = at.element(r);
          asyncCopyToShared(e, addr, pred, vec * eltBytes, elt, slot,
                            storeOffset(r, slotXor));
        }
      };
    };
    // Loads into registers (`vec` elements each), then vector stores.
    auto registerCopy = [&](int64_t vec, bool unitStride) {
      return [&, vec, unitStride](Access &acc, Value slotXor) {
        ThreadCoords coords(e, acc.layout);
        Addresses at(acc, coords, vec, unitStride);
        int64_t n = std::max({vec, sv, group});
        for (int64_t g = 0; g < acc.layout.getNumRegisters(); g += n) {
          // (Element loads of a copy `in_slot` reorders: each store
          // vector's elements right before it, not the group's.)
          if (vec == 1 && group > 1) {
            for (int64_t r = 0; r < n; r += sv) {
              SmallVector<Value> vector;
              for (int64_t k = 0; k < sv; ++k) {
                auto [addr, pred] = at.element(g + tileRegister(r + k));
                vector.push_back(
                    predicatedLoad(e, addr, pred, elt, 1, Attribute()).front());
              }
              storeSharedVector(e, vector, elt, slot,
                                storeOffset(g + r, slotXor));
            }
            continue;
          }
          SmallVector<Value> values;
          for (int64_t r = g; r < g + n; r += vec) {
            auto [addr, pred] = at.element(r);
            values.append(predicatedLoad(e, addr, pred, elt, vec, Attribute()));
          }
          for (int64_t r = 0; r < n; r += sv) {
            SmallVector<Value> vector;
            for (int64_t k = 0; k < sv; ++k)
              vector.push_back(values[tileRegister(r + k)]);
            storeSharedVector(e, vector, elt, slot,
                              storeOffset(g + r, slotXor));
          }
        }
      };
    };
    // Rows of unit stride whose elements (narrower than a word) start
    // anywhere (bf16 rows an odd number of elements apart): each store
    // vector's run of elements comes from the aligned words that cover it,
    // one more than it fills, each pair funnel-shifted by the run's
    // misalignment (`shf.r.clamp`, PTX ISA 9.7.8.8) and the bytes past the
    // run's in-bounds elements cleared. The run's elements are consecutive
    // along the contiguous dim, so those in bounds are a prefix (a count a
    // run, not a predicate an element); a word is loaded where the run's
    // lowest element in it is in bounds, so no word past the view's last
    // element is read. A chunk's loads all go first, then its stores.
    int64_t perWord = 4 / std::max<int64_t>(1, eltBytes);
    bool shiftable =
        !op.getInSlot() && eltBytes < 4 && 4 % eltBytes == 0 &&
        sv * eltBytes % 4 == 0 &&
        layout.getContiguity(whole.contigDim) % sv == 0 && numRegs % sv == 0;
    auto shiftedCopy = [&](Access &acc, Value slotXor) {
      ThreadCoords coords(e, acc.layout);
      Addresses at(acc, coords, 1, /*unitStride=*/true);
      Type i32 = e.b.getI32Type(), i64 = e.b.getI64Type();
      int64_t outWords = sv * eltBytes / 4;
      struct Run {
        SmallVector<Value> words;
        Value shift, valid; // bits; in-bounds elements (null: all)
      };
      SmallVector<Run> runs;
      for (int64_t g = 0; g < acc.layout.getNumRegisters(); g += sv) {
        Run run;
        Value first;
        for (int64_t k = 0; k < sv; ++k) {
          auto [addr, pred] = at.element(g + k);
          if (k == 0)
            first = addr;
          if (pred)
            run.valid = run.valid ? e.add(run.valid, pred) : pred;
        }
        Value low =
            arith::TruncIOp::create(e.b, loc, i32, e.andI(first, e.i64(3)));
        Value aligned = e.andI(first, e.i64(~int64_t(3)));
        run.shift = e.mul(low, e.i32(8));
        // The run's misalignment in elements.
        Value skew = arith::DivUIOp::create(e.b, loc, low, e.i32(eltBytes));
        for (int64_t i = 0; i <= outWords; ++i) {
          // Word i's lowest element of the run: i * perWord - skew (0 in
          // word 0); the last word only where the run is skewed.
          Value lowest = i == 0 ? e.i32(0)
                                : Value(arith::SubIOp::create(
                                      e.b, loc, e.i32(i * perWord), skew));
          Value pred;
          if (run.valid)
            pred = arith::CmpIOp::create(e.b, loc, arith::CmpIPredicate::slt,
                                         lowest, run.valid);
          else if (i == outWords)
            pred = arith::CmpIOp::create(e.b, loc, arith::CmpIPredicate::ne,
                                         low, e.i32(0));
          if (pred)
            pred = arith::ExtUIOp::create(e.b, loc, i32, pred);
          run.words.push_back(predicatedLoad(e, e.add(aligned, e.i64(4 * i)),
                                             pred, i32, 1, Attribute())
                                  .front());
        }
        runs.push_back(std::move(run));
      }
      for (auto [k, run] : llvm::enumerate(runs)) {
        SmallVector<Value> words;
        Value validBytes =
            run.valid ? e.mul(run.valid, e.i32(eltBytes)) : Value();
        for (int64_t i = 0; i < outWords; ++i) {
          Value w = e.ptx("shf.r.clamp.b32 $0, $1, $2, $3;", "=r,r,r,r", {i32},
                          {run.words[i], run.words[i + 1], run.shift})
                        .front();
          if (validBytes) {
            // Keep min(max(valid bytes - 4i, 0), 4) bytes of the word.
            Value rest =
                arith::SubIOp::create(e.b, loc, validBytes, e.i32(4 * i));
            rest = arith::MaxSIOp::create(e.b, loc, rest, e.i32(0));
            rest = arith::MinSIOp::create(e.b, loc, rest, e.i32(4));
            Value bits =
                arith::ExtUIOp::create(e.b, loc, i64, e.mul(rest, e.i32(8)));
            Value keep = arith::SubIOp::create(
                e.b, loc, arith::ShLIOp::create(e.b, loc, e.i64(1), bits),
                e.i64(1));
            w = e.andI(w, arith::TruncIOp::create(e.b, loc, i32, keep));
          }
          words.push_back(w);
        }
        storeSharedVector(e, e.unpackWords(words, elt, sv), elt, slot,
                          storeOffset(int64_t(k) * sv, slotXor));
      }
    };

    // The chunk: two of the larger of a load and a store vector (four
    // spilled in a producer of 72 registers a thread). Shifted words take
    // four store vectors where the partition's budget is 64 registers or
    // more (five words each a 16-byte run: a chunk's loads are what a
    // thread has in flight, and the chunks one after another what the
    // copy takes; with two, the D = 128 attention twin's K and V copies
    // ran 1.3x longer on an H100).
    int32_t budget = e.partitionRegisters();
    int64_t shiftedChunk = (budget == 0 || budget >= 64 ? 4 : 2) * sv;
    // A copy `in_slot` reorders holds two of its groups (each thread's
    // loads of one chunk are in flight together, a global round trip a
    // chunk: at one group, fp8 attention's K-major V copy took two round
    // trips a block at D = 128 and halved the kernel's speed).
    int64_t chunk = group > 1 ? 2 * group
                              : 2 * std::max(whole.maxVector(), sv);
    // Shared stores from registers where the copies are not waited for:
    // the channel's fill is each thread's cp.async arrival.
    auto releaseStores = [&] {
      if (op.getNoWait())
        releaseSharedStores(e);
    };
    auto path = [&](int64_t vec, bool unitStride) {
      // (cp.async moves runs as they are: not a copy `in_slot` reorders.)
      if (vec * eltBytes >= 4 && vec <= sv && !op.getInSlot()) {
        forEachChunk(chunk, asyncCopy(vec));
        return;
      }
      forEachChunk(chunk, registerCopy(vec, unitStride));
      releaseStores();
    };
    // The widest vector the uniform run-time checks allow, then 4-byte
    // words: rows 4-byte aligned (bf16 N even) still move in words; rows
    // of unit stride but no alignment (N odd) in shifted words, or element
    // by element from one address a row (the elements' offsets
    // immediates), else each its own address.
    auto branch = [&](Value ok, auto then, auto otherwise) {
      auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange{}, ok,
                                    /*withElseRegion=*/true);
      OpBuilder::InsertionGuard g(rewriter);
      rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      then();
      rewriter.setInsertionPoint(ifOp.elseBlock()->getTerminator());
      otherwise();
    };
    std::function<void(int64_t)> widest = [&](int64_t vec) {
      if (vec == 1) {
        Value unit = e.eq(whole.view.strides[whole.contigDim], e.i64(1));
        if (!shiftable)
          return branch(
              unit, [&] { path(1, true); }, [&] { path(1, false); });
        // Shifted words where the tile also starts at a column >= 0 (a
        // run's elements in bounds are then a prefix of it).
        return branch(
            e.andI(unit, arith::CmpIOp::create(
                             e.b, loc, arith::CmpIPredicate::sge,
                             whole.offsets[whole.contigDim], e.i64(0))),
            [&] {
              forEachChunk(shiftedChunk, shiftedCopy);
              releaseStores();
            },
            [&] { path(1, false); });
      }
      // (Then 4-byte words, then elements: each path is code and
      // registers of the producer.)
      int64_t word = std::max<int64_t>(1, 4 / eltBytes);
      branch(
          whole.vectorOk(vec), [&] { path(vec, false); },
          [&] { widest(vec > word ? word : 1); });
    };
    widest(whole.maxVector());
    // The thread's cp.async copies complete (PTX ISA 9.7.9.25.3.3,
    // cp.async.wait_all), then its generic-proxy writes become visible to
    // the MMA's async-proxy reads. (Unless the channel's fill waits for
    // them, and its readers fence.)
    if (!op.getNoWait()) {
      e.ptx("cp.async.wait_all;", "", {}, {}, /*sideEffects=*/true);
      fenceProxyAsyncShared(e);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

Value tilec::vectorViewOk(Emitter &e, const ViewValues &view, int contigDim,
                          int64_t vec, Type elementType) {
  Value ok = e.eq(view.strides[contigDim], e.i64(1));
  auto aligned = [&](Value v, int64_t n) {
    return e.eq(e.andI(v, e.i64(n - 1)), e.i64(0));
  };
  int64_t bytes = vec * storageBytes(elementType);
  Value addr =
      LLVM::PtrToIntOp::create(e.b, e.loc, e.b.getI64Type(), view.base);
  ok = e.andI(ok, aligned(addr, bytes));
  ok = e.andI(ok, aligned(view.sizes[contigDim], vec));
  for (unsigned d = 0; d < view.strides.size(); ++d)
    if (int(d) != contigDim)
      ok = e.andI(ok, aligned(view.strides[d], vec));
  return ok;
}

SmallVector<Value>
tilec::emitVectorOrScalar(ConversionPatternRewriter &rewriter, Location loc,
                          int64_t vec, Value ok, TypeRange types,
                          function_ref<SmallVector<Value>(int64_t)> path) {
  if (vec == 1)
    return path(1);
  auto ifOp = scf::IfOp::create(rewriter, loc, types, ok,
                                /*withElseRegion=*/true);
  OpBuilder::InsertionGuard g(rewriter);
  for (auto [block, width] : {std::pair{ifOp.thenBlock(), vec},
                              std::pair{ifOp.elseBlock(), int64_t(1)}}) {
    if (types.empty()) {
      rewriter.setInsertionPoint(block->getTerminator());
      path(width);
    } else {
      rewriter.setInsertionPointToStart(block);
      scf::YieldOp::create(rewriter, loc, path(width));
    }
  }
  return SmallVector<Value>(ifOp.getResults());
}

SmallVector<Value> tilec::predicatedLoad(Emitter &e, Value addr, Value pred,
                                         Type elt, int64_t vec,
                                         Attribute padding) {
  int64_t bytes = vec * storageBytes(elt);
  int nwords = std::max<int64_t>(1, bytes / 4);
  SmallVector<Type> wordTys(nwords, e.b.getI32Type());
  if (!pred) {
    std::string constraints;
    for (int w = 0; w < nwords; ++w)
      constraints += "=r,";
    constraints += "l";
    SmallVector<Value> words = e.ptx(
        memInstr("ld", bytes) + " " + regList(0, nwords) + ", [$" +
            std::to_string(nwords) + "];",
        constraints, wordTys, {addr}, /*sideEffects=*/true);
    return e.unpackWords(words, elt, vec);
  }
  SmallVector<Value> pad = paddingWords(e, padding, elt, bytes);
  std::string asmStr = "{\n.reg .pred p;\nsetp.ne.b32 p, $" +
                       std::to_string(nwords) + ", 0;\n";
  for (int w = 0; w < nwords; ++w)
    asmStr += "mov.b32 $" + std::to_string(w) + ", $" +
              std::to_string(nwords + 2 + w) + ";\n";
  asmStr += "@p " + memInstr("ld", bytes) + " " + regList(0, nwords) + ", [$" +
            std::to_string(nwords + 1) + "];\n}";
  std::string constraints;
  for (int w = 0; w < nwords; ++w)
    constraints += "=r,";
  constraints += "r,l";
  for (int w = 0; w < nwords; ++w)
    constraints += ",r";
  SmallVector<Value> operands{pred, addr};
  operands.append(pad);
  SmallVector<Value> words =
      e.ptx(asmStr, constraints, wordTys, operands, /*sideEffects=*/true);
  return e.unpackWords(words, elt, vec);
}

void tilec::predicatedStore(Emitter &e, Value addr, Value pred,
                            ValueRange elements) {
  int64_t bytes = elements.size() * storageBytes(elements.front().getType());
  int nwords = std::max<int64_t>(1, bytes / 4);
  if (!pred) {
    std::string constraints = "l";
    for (int w = 0; w < nwords; ++w)
      constraints += ",r";
    SmallVector<Value> operands{addr};
    operands.append(e.packWords(elements));
    e.ptx(memInstr("st", bytes) + " [$0], " + regList(1, nwords) + ";",
          constraints, {}, operands, /*sideEffects=*/true);
    return;
  }
  std::string asmStr = "{\n.reg .pred p;\nsetp.ne.b32 p, $0, 0;\n@p " +
                       memInstr("st", bytes) + " [$1], " +
                       regList(2, nwords) + ";\n}";
  std::string constraints = "r,l";
  for (int w = 0; w < nwords; ++w)
    constraints += ",r";
  SmallVector<Value> operands{pred, addr};
  operands.append(e.packWords(elements));
  e.ptx(asmStr, constraints, {}, operands, /*sideEffects=*/true);
}

void tilec::populateTileMemoryPatterns(TypeConverter &converter,
                                       RewritePatternSet &patterns) {
  patterns.add<LoadOpLowering,    // tile.load
               StoreOpLowering,   // tile.store
               ThreadCopyLowering // tgpu.thread_copy
               >(converter, patterns.getContext());
}
