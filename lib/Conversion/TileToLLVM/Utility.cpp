//===- Utility.cpp - helpers for lowering tiles to LLVM -------------------===//

#include "Utility.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"

#include <map>

using namespace mlir;
using namespace tilec;

static constexpr llvm::StringLiteral kSharedGlobal = "tilec_smem";

Value Emitter::i32(int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
}
Value Emitter::i64(int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
}
Value Emitter::add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
Value Emitter::mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
Value Emitter::xorI(Value x, Value y) { return arith::XOrIOp::create(b, loc, x, y); }
Value Emitter::xorConst(Value dyn, int64_t dynBits, int64_t c) {
  int64_t shared = c & dynBits, apart = c & ~dynBits;
  Value v = shared ? xorI(dyn, i32(shared)) : dyn;
  if (!apart)
    return v;
  return arith::AddIOp::create(b, loc, v, i32(apart),
                               arith::IntegerOverflowFlags::nuw |
                                   arith::IntegerOverflowFlags::nsw);
}
Value Emitter::andI(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
Value Emitter::ult(Value x, Value y) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
}
Value Emitter::eq(Value x, Value y) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y);
}
Value Emitter::sext64(Value x) {
  if (x.getType().isInteger(64))
    return x;
  return arith::ExtSIOp::create(b, loc, b.getI64Type(), x);
}

SmallVector<Value> Emitter::ptx(StringRef asmString, StringRef constraints,
                                TypeRange resultTypes, ValueRange operands,
                                bool sideEffects) {
  Type resTy;
  if (resultTypes.size() == 1)
    resTy = resultTypes.front();
  else if (resultTypes.size() > 1)
    resTy = LLVM::LLVMStructType::getLiteral(b.getContext(),
                                             SmallVector<Type>(resultTypes));
  auto op = LLVM::InlineAsmOp::create(
      b, loc, resTy, operands, asmString, constraints, sideEffects,
      /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      ArrayAttr());
  SmallVector<Value> results;
  if (resultTypes.size() == 1)
    results.push_back(op.getResult(0));
  else
    for (unsigned i = 0; i < resultTypes.size(); ++i)
      results.push_back(
          LLVM::ExtractValueOp::create(b, loc, op.getResult(0), i));
  return results;
}

/// The partition the insertion point is in, if any (see kThreadRangeAttr).
struct Partition {
  int32_t firstThread, threads, barrier, scratchShift, regs;
};
static std::optional<Partition> enclosingPartition(OpBuilder &b) {
  Block *block = b.getInsertionBlock();
  for (Region *r = block ? block->getParent() : nullptr; r;
       r = r->getParentRegion()) {
    Operation *p = r->getParentOp();
    if (auto a = p->getAttrOfType<DenseI32ArrayAttr>(kThreadRangeAttr)) {
      unsigned i = 5 * r->getRegionNumber();
      return Partition{a[i], a[i + 1], a[i + 2], a[i + 3], a[i + 4]};
    }
  }
  return std::nullopt;
}

Value Emitter::threadId() {
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  if (auto p = enclosingPartition(b); p && p->firstThread != 0)
    tid = arith::SubIOp::create(b, loc, tid, i32(p->firstThread));
  return tid;
}
int32_t Emitter::partitionFirstThread() {
  std::optional<Partition> p = enclosingPartition(b);
  return p ? p->firstThread : 0;
}
int32_t Emitter::partitionRegisters() {
  std::optional<Partition> p = enclosingPartition(b);
  return p ? p->regs : 0;
}
Value Emitter::laneId() { return andI(threadId(), i32(31)); }
Value Emitter::warpId() {
  return arith::ShRUIOp::create(b, loc, threadId(), i32(5));
}
void Emitter::barrier() {
  if (auto p = enclosingPartition(b)) {
    // Named barrier `id` over the partition's threads (0 is the block's).
    NVVM::BarrierOp::create(b, loc, TypeRange{}, i32(p->barrier),
                            i32(p->threads), /*reductionOp=*/{}, Value());
    return;
  }
  NVVM::Barrier0Op::create(b, loc);
}

Value Emitter::smemStart() {
  auto ptrTy = LLVM::LLVMPointerType::get(b.getContext(), 3);
  return LLVM::AddressOfOp::create(b, loc, ptrTy, kSharedGlobal);
}

Value Emitter::sharedBase(Operation *op) {
  Value base = smemStart();
  int64_t offset = 0;
  if (auto own = op->getAttrOfType<IntegerAttr>(kScratchOffsetAttr)) {
    offset = own.getInt();
  } else {
    if (auto func = op->getParentOfType<func::FuncOp>())
      if (auto off = func->getAttrOfType<IntegerAttr>(kScratchOffsetAttr))
        offset = off.getInt();
    // Consumer copies each have their own scratch area.
    if (auto p = enclosingPartition(b))
      offset += p->scratchShift;
  }
  if (offset)
    base = LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                               ValueRange{i32(offset)});
  return base;
}

bool tilec::isFp8(Type t) { return isa<Float8E4M3FNType, Float8E5M2Type>(t); }

StringRef tilec::fp8Name(Type t) {
  return isa<Float8E4M3FNType>(t) ? "e4m3x2" : "e5m2x2";
}

Value tilec::sharedAddress(Emitter &e, Value ptr) {
  return LLVM::PtrToIntOp::create(e.b, e.loc, e.b.getI32Type(), ptr);
}

Value tilec::offsetPtr(Emitter &e, Value base, Value byteOffset) {
  return LLVM::GEPOp::create(e.b, e.loc, base.getType(), e.b.getI8Type(),
                             base, ValueRange{byteOffset});
}

Value tilec::barrierPointer(Emitter &e, Value barriers, Value index) {
  return LLVM::GEPOp::create(e.b, e.loc, barriers.getType(), e.b.getI64Type(),
                             barriers, ValueRange{index});
}

Value tilec::slotPointer(Emitter &e, tgpu::SharedBufferType t, Value buffer,
                         Value slot) {
  return offsetPtr(e, buffer, e.mul(slot, e.i32(t.getSlotStride())));
}

Value tilec::slotAddress(Emitter &e, tgpu::SharedBufferType t, Value buffer,
                         Value slot) {
  return e.add(sharedAddress(e, buffer), e.mul(slot, e.i32(t.getSlotStride())));
}

Value tilec::firstThread(Emitter &e, Value index) {
  return e.eq(index, e.i32(0));
}

SmallVector<SmallVector<Value>> tilec::tiedAsm(
    Emitter &e, ArrayRef<ValueRange> groups, StringRef text,
    function_ref<std::string(unsigned, std::string &, SmallVectorImpl<Value> &)>
        extra) {
  // Words of 32 bits (or 16, tied as such), each an output tied to the
  // input of the same number.
  SmallVector<Value> operands;
  SmallVector<Type> types;
  std::string constraints;
  for (ValueRange r : groups)
    for (Value v : r) {
      Type t = v.getType();
      Value w = t.isF32() || t.isInteger(32) ? v : e.toBits(v);
      constraints += std::string(operands.empty() ? "=" : ",=") +
                     (w.getType().isF32()           ? "f"
                      : w.getType().isInteger(16)   ? "h"
                                                    : "r");
      types.push_back(w.getType());
      operands.push_back(w);
    }
  unsigned tied = operands.size();
  for (unsigned i = 0; i < tied; ++i)
    constraints += "," + std::to_string(i);
  std::string before =
      extra ? extra(2 * tied, constraints, operands) : std::string();
  std::string asmStr =
      before.empty() ? text.str() : "{\n" + before + text.str() + "\n}";
  SmallVector<Value> out = e.ptx(asmStr, constraints, types, operands, true);
  SmallVector<SmallVector<Value>> results;
  unsigned pos = 0;
  for (ValueRange r : groups) {
    SmallVector<Value> vals;
    for (Value orig : r) {
      Value x = out[pos++];
      vals.push_back(x.getType() == orig.getType() ? x
                                                   : e.fromBits(x, orig.getType()));
    }
    results.push_back(std::move(vals));
  }
  return results;
}

Owners::Owners(Emitter &e, const LinearLayout &l) {
  std::map<LinearLayout::Coords, int64_t> seen;
  for (int64_t r = 0; r < l.getNumRegisters(); ++r)
    first.push_back(
        seen.try_emplace(l.applyIn(InDim::Register, r), r).first->second);
  auto masks = l.getFreeVariableMasks();
  int64_t laneMask = masks["lane"], warpMask = masks["warp"];
  auto zeroBits = [&](Value id, int64_t m) {
    return e.eq(e.andI(id, e.i32(m)), e.i32(0));
  };
  if (laneMask)
    thread = zeroBits(e.laneId(), laneMask);
  if (warpMask) {
    Value w = zeroBits(e.warpId(), warpMask);
    thread = thread ? e.andI(thread, w) : w;
  }
}

Value Owners::restrict(Emitter &e, Value pred) const {
  if (!thread)
    return pred;
  return e.andI(pred,
                arith::ExtUIOp::create(e.b, e.loc, e.b.getI32Type(), thread));
}

ViewValues::ViewValues(tile::TensorViewType type, ValueRange values) {
  // A TMA view's values start with its descriptor.
  if (type.isTMA())
    values = values.drop_front();
  unsigned rank = type.getRank();
  base = values[0];
  for (unsigned d = 0; d < rank; ++d) {
    sizes.push_back(values[1 + d]);
    strides.push_back(values[1 + rank + d]);
  }
}

std::pair<Value, Value>
ViewValues::element(Emitter &e, function_ref<Value(unsigned)> index,
                    Type elementType, Value mask, Value linear) const {
  bool sum = !linear;
  Value ok;
  for (unsigned d = 0; d < sizes.size(); ++d) {
    Value i = index(d);
    Value in = e.ult(i, sizes[d]);
    ok = ok ? e.andI(ok, in) : in;
    if (!sum)
      continue;
    Value term = e.mul(i, strides[d]);
    linear = linear ? e.add(linear, term) : term;
  }
  if (mask)
    ok = e.andI(ok, mask);
  auto ptrTy = LLVM::LLVMPointerType::get(e.b.getContext(), 1);
  Value ptr = LLVM::GEPOp::create(e.b, e.loc, ptrTy, storageType(elementType),
                                  base, ValueRange{linear});
  Value addr = LLVM::PtrToIntOp::create(e.b, e.loc, e.b.getI64Type(), ptr);
  return {addr, arith::ExtUIOp::create(e.b, e.loc, e.b.getI32Type(), ok)};
}

Value tilec::combineReduce(Emitter &e, tile::ReduceKind kind, Value x,
                           Value y) {
  bool isFloat = isa<FloatType>(x.getType());
  switch (kind) {
  case tile::ReduceKind::Sum:
    return isFloat ? Value(arith::AddFOp::create(e.b, e.loc, x, y))
                   : Value(arith::AddIOp::create(e.b, e.loc, x, y));
  case tile::ReduceKind::Max:
    return isFloat ? Value(arith::MaximumFOp::create(e.b, e.loc, x, y))
                   : Value(arith::MaxSIOp::create(e.b, e.loc, x, y));
  case tile::ReduceKind::Min:
    return isFloat ? Value(arith::MinimumFOp::create(e.b, e.loc, x, y))
                   : Value(arith::MinSIOp::create(e.b, e.loc, x, y));
  }
  llvm_unreachable("unknown reduce kind");
}

Value tilec::reduceIdentity(Emitter &e, tile::ReduceKind kind, Type type) {
  if (auto ft = dyn_cast<FloatType>(type)) {
    APFloat v = kind == tile::ReduceKind::Sum
                    ? APFloat::getZero(ft.getFloatSemantics())
                    : APFloat::getInf(ft.getFloatSemantics(),
                                      kind == tile::ReduceKind::Max);
    return arith::ConstantFloatOp::create(e.b, e.loc, ft, v);
  }
  unsigned w = type.getIntOrFloatBitWidth();
  APInt v = kind == tile::ReduceKind::Sum   ? APInt::getZero(w)
            : kind == tile::ReduceKind::Max ? APInt::getSignedMinValue(w)
                                            : APInt::getSignedMaxValue(w);
  return arith::ConstantOp::create(e.b, e.loc, type,
                                   e.b.getIntegerAttr(type, v));
}

Type tilec::storageType(Type t) {
  return IntegerType::get(t.getContext(), storageBytes(t) * 8);
}

Value Emitter::toBits(Value v) {
  Type t = v.getType();
  if (t.isInteger(1))
    return arith::ExtUIOp::create(b, loc, b.getI8Type(), v);
  if (isa<IntegerType>(t))
    return v;
  return arith::BitcastOp::create(b, loc, storageType(t), v);
}

Value Emitter::fromBits(Value bits, Type t) {
  if (t.isInteger(1))
    return arith::TruncIOp::create(b, loc, t, bits);
  if (isa<IntegerType>(t))
    return bits;
  return arith::BitcastOp::create(b, loc, t, bits);
}

SmallVector<Value> Emitter::unpackWords(ValueRange words, Type elementType,
                                        int n) {
  Type st = storageType(elementType);
  unsigned bits = st.getIntOrFloatBitWidth();
  unsigned total = bits * n;
  SmallVector<Value> out;
  if (total <= 32) {
    Value w = words.front();
    Type it = b.getIntegerType(total);
    if (total < 32)
      w = arith::TruncIOp::create(b, loc, it, w);
    if (n == 1) {
      out.push_back(fromBits(w, elementType));
      return out;
    }
    Value vec = LLVM::BitcastOp::create(b, loc, VectorType::get(n, st), w);
    for (int i = 0; i < n; ++i)
      out.push_back(fromBits(
          LLVM::ExtractElementOp::create(b, loc, vec, i32(i)), elementType));
    return out;
  }
  auto wordVecTy = VectorType::get(words.size(), b.getI32Type());
  Value wv = LLVM::UndefOp::create(b, loc, wordVecTy);
  for (auto [i, w] : llvm::enumerate(words))
    wv = LLVM::InsertElementOp::create(b, loc, wv, w, i32(i));
  Value vec = LLVM::BitcastOp::create(b, loc, VectorType::get(n, st), wv);
  for (int i = 0; i < n; ++i)
    out.push_back(fromBits(LLVM::ExtractElementOp::create(b, loc, vec, i32(i)),
                           elementType));
  return out;
}

/// The i16 whose low byte is `lo` and high byte `hi` where both are
/// truncations of one (a pair from one cvt ...x2: Fp8PairTruncLowering),
/// through the bitcasts between the bytes and their element type.
static Value halfOfBytes(Value lo, Value hi) {
  auto strip = [](Value v) {
    while (auto cast = v.getDefiningOp<arith::BitcastOp>())
      v = cast.getIn();
    return v.getDefiningOp<LLVM::TruncOp>();
  };
  LLVM::TruncOp l = strip(lo), h = strip(hi);
  if (!l || !h || !l.getArg().getType().isInteger(16))
    return {};
  auto shr = h.getArg().getDefiningOp<LLVM::LShrOp>();
  APInt amount;
  if (!shr || shr.getLhs() != l.getArg() ||
      !matchPattern(shr.getRhs(), m_ConstantInt(&amount)) || amount != 8)
    return {};
  return l.getArg();
}

SmallVector<Value> Emitter::packWords(ValueRange elements) {
  SmallVector<Value> bits;
  for (Value v : elements)
    bits.push_back(toBits(v));
  Type st = bits.front().getType();
  // Four bytes that are two pairs of one conversion each: the two halves.
  if (bits.size() == 4 && st.isInteger(8))
    if (Value h0 = halfOfBytes(elements[0], elements[1]))
      if (Value h1 = halfOfBytes(elements[2], elements[3])) {
        Value vec = LLVM::UndefOp::create(b, loc, VectorType::get(2, b.getI16Type()));
        vec = LLVM::InsertElementOp::create(b, loc, vec, h0, i32(0));
        vec = LLVM::InsertElementOp::create(b, loc, vec, h1, i32(1));
        return {LLVM::BitcastOp::create(b, loc, b.getI32Type(), vec)};
      }
  unsigned total = st.getIntOrFloatBitWidth() * bits.size();
  Value packed;
  if (bits.size() == 1) {
    packed = bits.front();
  } else {
    Value vec = LLVM::UndefOp::create(b, loc, VectorType::get(bits.size(), st));
    for (auto [i, v] : llvm::enumerate(bits))
      vec = LLVM::InsertElementOp::create(b, loc, vec, v, i32(i));
    if (total <= 32) {
      packed = LLVM::BitcastOp::create(b, loc, b.getIntegerType(total), vec);
    } else {
      auto wordVecTy = VectorType::get(total / 32, b.getI32Type());
      Value wv = LLVM::BitcastOp::create(b, loc, wordVecTy, vec);
      SmallVector<Value> words;
      for (unsigned i = 0; i < total / 32; ++i)
        words.push_back(LLVM::ExtractElementOp::create(b, loc, wv, i32(i)));
      return words;
    }
  }
  if (total < 32)
    return {arith::ExtUIOp::create(b, loc, b.getI32Type(), packed)};
  if (total == 32)
    return {packed};
  // A single 64-bit element.
  Value lo = arith::TruncIOp::create(b, loc, b.getI32Type(), packed);
  Value hi = arith::TruncIOp::create(
      b, loc, b.getI32Type(),
      arith::ShRUIOp::create(b, loc, packed,
                             arith::ConstantIntOp::create(b, loc, st, 32)));
  return {lo, hi};
}

Value Emitter::shuffleXor(Value v, int mask) {
  Type t = v.getType();
  SmallVector<Value> words = packWords({v});
  std::string asmStr = "shfl.sync.bfly.b32 $0, $1, " + std::to_string(mask) +
                       ", 0x1f, 0xffffffff;";
  SmallVector<Value> shuffled;
  for (Value w : words)
    shuffled.push_back(
        ptx(asmStr, "=r,r", {b.getI32Type()}, {w}, /*sideEffects=*/true)[0]);
  return unpackWords(shuffled, t, 1)[0];
}

Value Emitter::shuffleIdx(Value v, Value srcLane) {
  SmallVector<Value> shuffled;
  for (Value w : packWords({v}))
    shuffled.push_back(ptx("shfl.sync.idx.b32 $0, $1, $2, 0x1f, 0xffffffff;",
                           "=r,r,r", {b.getI32Type()}, {w, srcLane},
                           /*sideEffects=*/true)[0]);
  return unpackWords(shuffled, v.getType(), 1)[0];
}

//===----------------------------------------------------------------------===//
// ThreadCoords
//===----------------------------------------------------------------------===//

ThreadCoords::ThreadCoords(Emitter &e, const LinearLayout &layout)
    : e(e), layout(layout) {
  Value lane, warp;
  for (unsigned d = 0; d < layout.getRank(); ++d) {
    Value acc;
    int64_t bits = 0;
    for (InDim in : {InDim::Lane, InDim::Warp}) {
      const auto &bases = layout.getBases(in);
      for (unsigned i = 0; i < bases.size(); ++i) {
        if (bases[i][d] == 0)
          continue;
        bits |= bases[i][d];
        Value &idx = in == InDim::Lane ? lane : warp;
        if (!idx)
          idx = in == InDim::Lane ? e.laneId() : e.warpId();
        // ((idx >> i) & 1) * basis
        Value bit = e.andI(arith::ShRUIOp::create(e.b, e.loc, idx, e.i32(i)),
                           e.i32(1));
        Value term = e.mul(bit, e.i32(bases[i][d]));
        acc = acc ? e.xorI(acc, term) : term;
      }
    }
    dynamic.push_back(acc);
    dynamicBits.push_back(bits);
  }
}

Value ThreadCoords::get(int64_t reg, int dim) {
  int64_t c = constant(reg)[dim];
  Value dyn = dynamic[dim];
  if (!dyn)
    return e.i32(c);
  return e.xorConst(dyn, dynamicBits[dim], c);
}

Value ThreadCoords::flatIndex(int64_t reg) {
  Value flat;
  int64_t stride = 1;
  for (int d = int(layout.getRank()) - 1; d >= 0; --d) {
    Value term = e.mul(get(reg, d), e.i32(stride));
    flat = flat ? e.add(flat, term) : term;
    stride *= layout.getShape()[d];
  }
  return flat ? flat : e.i32(0);
}
