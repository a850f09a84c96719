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

    auto emitPath = [&](int64_t vec) {
      ThreadCoords coords(e, acc.layout);
      Addresses at(acc, coords, vec);
      for (int64_t r = 0; r < numRegs; r += vec) {
        auto [addr, pred] = at.element(r);
        predicatedStore(e, addr, pred, values.slice(r, vec));
      }
      return SmallVector<Value>();
    };

    emitAccess(rewriter, acc, TypeRange{}, emitPath);
    rewriter.eraseOp(op);
    return success();
  }
};

/// tgpu.thread_copy, in chunks of a few registers: a run-time loop (not
/// unrolled) over the high register bits, each iteration loading its
/// chunk (vector or element loads under the uniform check) and storing it
/// into the slot at once. A thread then holds a chunk of the tile and one
/// address, not all of it: a 64x256 bf16 B operand is 128 elements and 16
/// row addresses a thread of a warpgroup, which ptxas kept live (the
/// addresses hoisted out of the producer's loop) and spilled.
///
/// A chunk's coordinates are the tile offsets plus the chunk bits' bases
/// (added: they share no bit with the chunk's own registers, lanes and
/// warps, else the copy is one chunk); its slot offsets are the chunk's
/// own XOR the chunk bits' offsets (the slot layout is linear).
struct ThreadCopyLowering : public OpConversionPattern<tgpu::ThreadCopyOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tgpu::ThreadCopyOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Emitter e{rewriter, loc};
    auto tile = cast<RankedTensorType>(op.getTile());
    tgpu::SharedBufferType buf = op.getBuffer().getType();
    ArrayRef<int64_t> slotShape = buf.getSlotShape();
    LinearLayout layout = getLayout(tile);
    LinearLayout inSlot = layout.reshape(
        std::vector<int64_t>(slotShape.begin(), slotShape.end()));
    Type elt = tile.getElementType();
    auto store = analyzeSharedAccess(inSlot, buf.getSlotLayout(),
                                     elt.getIntOrFloatBitWidth());
    if (!store)
      return op.emitOpError() << "the slot cannot hold the tile";
    Value slot = slotPointer(e, buf, adaptor.getBuffer().front(),
                             adaptor.getSlot().front());
    // The whole tile's access; each chunk's is it with the chunk's layout
    // and offsets.
    Access whole = makeAccess(e, op.getTensor().getType(), adaptor.getTensor(),
                              adaptor.getOffsets(), tile, Value(),
                              ValueRange{}, /*inBounds=*/false);

    // The chunk: two of the larger of a load and a store vector (four
    // spilled in a producer of 72 registers a thread).
    int64_t numRegs = layout.getNumRegisters();
    int64_t sv = store->vectorElements;
    int64_t chunk = std::min(numRegs, 2 * std::max(whole.maxVector(), sv));
    unsigned rank = tile.getRank();
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
    LinearLayout innerLayout(
        std::vector<int64_t>(tile.getShape().begin(), tile.getShape().end()),
        inner, layout.getBases(InDim::Lane), layout.getBases(InDim::Warp));
    // The slot offset each chunk bit adds (XOR).
    SmallVector<int64_t> chunkOffsets;
    for (unsigned k = 0; k < outer.size(); ++k)
      chunkOffsets.push_back(
          store->toOffset
              .applyIn(InDim::Register, int64_t(1) << (innerBits + k))
              .front());

    auto ptrTy = LLVM::LLVMPointerType::get(rewriter.getContext(), 3);
    ThreadCoords storeAt(e, store->toOffset);
    // One chunk: `j` its index (i32, or null for the only one).
    auto copyChunk = [&](Value j) {
      Access acc = whole;
      acc.layout = innerLayout;
      Value slotXor;
      if (j) {
        // (The chunk's tile offsets in i32, as the op's, then widened.)
        SmallVector<Value> offs;
        for (ValueRange o : adaptor.getOffsets())
          offs.push_back(o.front());
        for (unsigned k = 0; k < outer.size(); ++k) {
          Value bit =
              e.andI(LLVM::LShrOp::create(e.b, loc, j, e.i32(k)), e.i32(1));
          for (unsigned d = 0; d < rank; ++d)
            if (outer[k][d])
              offs[d] = e.add(offs[d], e.mul(bit, e.i32(outer[k][d])));
          if (chunkOffsets[k]) {
            Value o = e.mul(bit, e.i32(chunkOffsets[k]));
            slotXor = slotXor ? e.xorI(slotXor, o) : o;
          }
        }
        for (unsigned d = 0; d < rank; ++d)
          acc.offsets[d] = e.sext64(offs[d]);
      }
      int64_t regs = innerLayout.getNumRegisters();
      auto emitPath = [&](int64_t vec, bool unitStride) {
        ThreadCoords coords(e, acc.layout);
        Addresses at(acc, coords, vec, unitStride);
        int64_t bytes = vec * storageBytes(elt);
        if (bytes >= 4 && vec <= sv) {
          // cp.async: global to shared without registers, zero-filled
          // where out of bounds (src-size 0); waited for once after the
          // loop, so the chunks' loads overlap.
          std::string size = std::to_string(bytes);
          std::string instr = std::string("cp.async.") +
                              (bytes == 16 ? "cg" : "ca") +
                              ".shared.global [$0], [$1], " + size + ", $2;";
          for (int64_t r = 0; r < regs; r += vec) {
            auto [addr, pred] = at.element(r);
            Value off = storeAt.get(r, 0);
            if (slotXor)
              off = e.xorI(off, slotXor);
            Value dst = sharedAddress(
                e, LLVM::GEPOp::create(e.b, loc, ptrTy, storageType(elt), slot,
                                       ValueRange{off}));
            Value srcSize =
                pred ? Value(arith::SelectOp::create(
                           e.b, loc, e.eq(pred, e.i32(0)), e.i32(0),
                           e.i32(bytes)))
                     : e.i32(bytes);
            e.ptx(instr, "r,l,r", {}, {dst, addr, srcSize},
                  /*sideEffects=*/true);
          }
          return SmallVector<Value>();
        }
        int64_t group = std::max(vec, sv);
        for (int64_t g = 0; g < regs; g += group) {
          SmallVector<Value> values;
          for (int64_t r = g; r < g + group; r += vec) {
            auto [addr, pred] = at.element(r);
            values.append(predicatedLoad(e, addr, pred, elt, vec, Attribute()));
          }
          for (int64_t r = 0; r < group; r += sv) {
            Value off = storeAt.get(g + r, 0);
            if (slotXor)
              off = e.xorI(off, slotXor);
            storeSharedVector(e, ArrayRef<Value>(values).slice(r, sv), elt,
                              slot, off);
          }
        }
        return SmallVector<Value>();
      };
      // The widest vector the uniform run-time checks allow, then 4-byte
      // words: rows 4-byte aligned (bf16 N even) still move in words; rows
      // of unit stride but no alignment (N odd) element by element from
      // one address a row (the elements' offsets immediates), else each
      // its own address.
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
        if (vec == 1)
          return branch(
              e.eq(acc.view.strides[acc.contigDim], e.i64(1)),
              [&] { emitPath(1, true); }, [&] { emitPath(1, false); });
        // (Then 4-byte words, then elements: each path is code and
        // registers of the producer.)
        int64_t word = std::max<int64_t>(1, 4 / storageBytes(elt));
        branch(
            acc.vectorOk(vec), [&] { emitPath(vec, false); },
            [&] { widest(vec > word ? word : 1); });
      };
      widest(acc.maxVector());
    };
    if (outer.empty()) {
      copyChunk(Value());
    } else {
      auto loop = scf::ForOp::create(
          rewriter, loc, e.i32(0), e.i32(int64_t(1) << outer.size()), e.i32(1));
      OpBuilder::InsertionGuard g(rewriter);
      rewriter.setInsertionPoint(loop.getBody()->getTerminator());
      copyChunk(loop.getInductionVar());
    }
    // The thread's cp.async copies complete (PTX ISA 9.7.9.25.3.3,
    // cp.async.wait_all), then its generic-proxy writes become visible to
    // the MMA's async-proxy reads.
    e.ptx("cp.async.wait_all;", "", {}, {}, /*sideEffects=*/true);
    fenceProxyAsyncShared(e);
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
