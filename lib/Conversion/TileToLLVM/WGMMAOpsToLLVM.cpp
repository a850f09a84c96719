//===- WGMMAOpsToLLVM.cpp - wgmma and its wait to inline PTX --------------===//
//
// tgpu.wgmma becomes wgmma.mma_async in inline PTX (NVVM's op takes its
// accumulators as a struct; here they are the registers the wgmma layout
// gives each thread, picked one by one), its shared operands read through
// descriptors derived from the buffers' linear layouts; tgpu.wgmma_wait
// becomes wgmma.wait_group with the accumulators passed through as tied
// registers, so that nothing reads them before the wait.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"
#include "tilec/Dialect/Tile/TargetInfo.h"

#include "tilec/Dialect/TGPU/TGPUDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;
using namespace tilec::tgpu;

namespace {

std::string ptxTypeName(Type t) {
  if (t.isBF16())
    return "bf16";
  if (t.isF16())
    return "f16";
  if (isa<Float8E4M3FNType>(t))
    return "e4m3";
  if (t.isInteger(8))
    return "s8";
  if (t.isF32())
    return "tf32";
  return "e5m2";
}

struct WGMMALowering : public OpConversionPattern<WGMMAOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WGMMAOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    auto aT = dyn_cast<SharedBufferType>(op.getA().getType());
    SharedBufferType bT = op.getB().getType();
    auto accT = cast<RankedTensorType>(op.getAcc().getType());
    LinearLayout acc = getLayout(accT);
    int64_t m = accT.getShape()[0], n = accT.getShape()[1];
    auto bShape = bT.getSlotShape();
    int64_t k = bShape[0];
    Type elt = bT.getElementType();
    int64_t kStep = wgmmaK(elt);
    std::optional<OperandDescriptor> aDesc;
    if (aT)
      aDesc = getOperandDescriptor(aT, 0);
    auto bDesc = getOperandDescriptor(bT, 1);
    if ((aT && !aDesc) || !bDesc)
      return op.emitOpError() << "operands have no descriptor";
    int numWarps = acc.getNumWarps();
    if (numWarps % 4 != 0)
      return op.emitOpError() << "needs whole warpgroups";
    // The warpgroups' places in the accumulator: warp bits past the first
    // two (a warpgroup's four warps stack along M) move 64 rows or a chunk
    // of N each.
    const LinearLayout::Bases &warpBases = acc.getBases(InDim::Warp);
    auto [groupsM, groupsN] = acc.wgmmaWarpGroupsOf();
    int64_t rowsPerRep = 64 * groupsM, instrN = n / groupsN;

    // A descriptor's low word is the start address (bits 4..17 of the
    // shared address) and the leading byte offset; its high word the
    // stride byte offset and the swizzle mode. Each wgmma gets the low word
    // of its operand's slot (a register) and forms the k-step's descriptor
    // inside its asm (the start plus the k-step's offset / 16, the high
    // word an immediate): the descriptors of every k-step, loop-invariant
    // for a Q held across the loop, would otherwise be hoisted out of the
    // loop and held as register pairs (32 registers for D = 256's Q).
    auto descWords = [](const OperandDescriptor &d) {
      uint64_t mode = d.swizzleBytes == 128 ? 1 : d.swizzleBytes == 64 ? 2 : 3;
      uint32_t hi = uint32_t(mode << 30) | uint32_t(d.strideByteOffset >> 4);
      uint32_t lo = uint32_t(d.leadingByteOffset >> 4) << 16;
      return std::pair<uint32_t, uint32_t>{lo, hi};
    };
    auto baseWord = [&](Value addr, const OperandDescriptor &d) {
      Value start = arith::ShRUIOp::create(
          rewriter, e.loc, e.andI(addr, e.i32(0x3FFFF)), e.i32(4));
      return arith::OrIOp::create(rewriter, e.loc, start,
                                  e.i32(int32_t(descWords(d).first)));
    };

    // This warpgroup's rows of A and columns of B, as offsets in their
    // layouts (linear maps, so the bits of the warpgroup index add by XOR).
    Value wg; // the warpgroup index, made at its first use
    auto groupOffset = [&](SharedBufferType t, int dim) {
      if (!wg)
        wg = arith::ShRUIOp::create(rewriter, e.loc, e.warpId(), e.i32(2));
      Value offset = e.i32(0);
      for (size_t j = 2; j < warpBases.size(); ++j) {
        if (!warpBases[j][dim])
          continue;
        Value on = e.andI(
            arith::ShRUIOp::create(rewriter, e.loc, wg, e.i32(int32_t(j - 2))),
            e.i32(1));
        SmallVector<int64_t> at(2, 0);
        at[dim] = warpBases[j][dim];
        offset = e.xorI(offset, e.mul(on, e.i32(slotByteOffset(t, at))));
      }
      return offset;
    };
    Value aBase, wgOffset;
    if (aT) {
      aBase = slotAddress(e, aT, adaptor.getA().front(),
                          adaptor.getASlot().front());
      wgOffset = groupOffset(aT, 0);
    }
    Value bBase = slotAddress(e, bT, adaptor.getB().front(),
                              adaptor.getBSlot().front());
    if (groupsN > 1)
      bBase = e.add(bBase, groupOffset(bT, 1));
    // A register A: per k-step the four 32-bit words of mma.sync's A
    // fragment (rows +0/+8, columns +0/+kStep/2 of lane 0's: pairs of
    // 16-bit or quads of 8-bit elements), found by their coordinates in
    // A's layout.
    ValueRange aRegs = aT ? ValueRange() : adaptor.getA();
    LinearLayout aLayout;
    if (!aT)
      aLayout = getLayout(op.getA().getType());
    int64_t perWord = 32 / elt.getIntOrFloatBitWidth();
    auto aWord = [&](int64_t row, int64_t col) -> FailureOr<Value> {
      SmallVector<Value> elements;
      for (int64_t i = 0; i < perWord; ++i) {
        auto r = aLayout.findRegister({row, col + i});
        if (!r)
          return failure();
        elements.push_back(aRegs[*r]);
      }
      return e.packWords(elements)[0];
    };

    SmallVector<Value> regs(adaptor.getAcc().begin(), adaptor.getAcc().end());
    int64_t perInstr = instrN / 2; // accumulator registers a thread of one
    bool integer = elt.isInteger(8); // s32 accumulators, no input scales
    std::string shape =
        "m64n" + std::to_string(instrN) + "k" + std::to_string(kStep);
    std::string tname = ptxTypeName(elt);
    std::string asmInstr = "wgmma.mma_async.sync.aligned." + shape +
                           (integer ? ".s32." : ".f32.") + tname + "." +
                           tname + " {";
    std::string constraints;
    for (int64_t i = 0; i < perInstr; ++i) {
      asmInstr += (i ? ", $" : "$") + std::to_string(i);
      constraints += std::string(i ? "," : "") + (integer ? "=r" : "=f");
    }
    for (int64_t i = 0; i < perInstr; ++i)
      constraints += "," + std::to_string(i);
    int64_t next = 2 * perInstr;
    asmInstr += "}, ";
    // The k-step's descriptor of the operand whose low word is operand
    // `$op`: `reg` = {low + offset / 16, high}.
    auto descAsm = [](const std::string &reg, int64_t op, int64_t offset,
                      uint32_t hi) {
      return "add.s32 " + reg + "l, $" + std::to_string(op) + ", " +
             std::to_string(offset >> 4) + ";\nmov.b64 " + reg + ", {" + reg +
             "l, " + std::to_string(hi) + "};\n";
    };
    int64_t aOp = -1, bOp;
    if (aT) {
      constraints += ",r";
      aOp = next++;
      asmInstr += "da";
    } else {
      constraints += ",r,r,r,r";
      asmInstr += "{$" + std::to_string(next) + ", $" +
                  std::to_string(next + 1) + ", $" + std::to_string(next + 2) +
                  ", $" + std::to_string(next + 3) + "}";
      next += 4;
    }
    constraints += ",r";
    bOp = next++;
    // scale-d, then the input negations (not for integers).
    asmInstr += integer ? ", db, 1" : ", db, 1, 1, 1";
    // The transpose immediates (16-bit inputs): A's only for a shared A.
    if (elt.getIntOrFloatBitWidth() == 16) {
      if (aT)
        asmInstr += std::string(", ") + (aDesc->kMajor ? "0" : "1");
      asmInstr += std::string(", ") + (bDesc->kMajor ? "0" : "1");
    }
    asmInstr += ";\n}";

    // The low words are the same in every lane; taken from lane 0 ptxas
    // knows it, and keeps them and the k-steps' descriptors in uniform
    // registers (UIADD3/UMOV next to each HGMMA instead of an add, a move
    // of the high word and two R2URs per descriptor).
    auto uniform = [&](Value v) -> Value {
      return NVVM::ShflOp::create(
          rewriter, e.loc, rewriter.getI32Type(), e.i32(-1), v, e.i32(0),
          e.i32(0x1f),
          NVVM::ShflKindAttr::get(rewriter.getContext(), NVVM::ShflKind::idx),
          UnitAttr());
    };
    Value aWord0, bWord0 = uniform(baseWord(bBase, *bDesc));
    if (aT)
      aWord0 = uniform(baseWord(e.add(aBase, wgOffset), *aDesc));
    // A register A's words, all formed before the fence: a word packed
    // between two wgmmas (8-bit elements take byte permutes) makes ptxas
    // fence each wgmma that reads one (C7519), serializing them.
    SmallVector<Value> aWords;
    if (!aT) {
      int64_t half = kStep / 2;
      for (int64_t rep = 0; rep < m / rowsPerRep; ++rep)
        for (int64_t kk = 0; kk < k / kStep; ++kk)
          for (auto [dr, dc] : {std::pair<int64_t, int64_t>{0, 0}, {8, 0},
                                {0, half}, {8, half}}) {
            FailureOr<Value> w =
                aWord(rep * rowsPerRep + dr, kk * kStep + dc);
            if (failed(w))
              return op.emitOpError()
                     << "A is not in the wgmma register-A layout";
            aWords.push_back(*w);
          }
    }
    NVVM::WgmmaFenceAlignedOp::create(rewriter, e.loc);
    SmallVector<Type> accTypes(perInstr, accT.getElementType());
    for (int64_t rep = 0; rep < m / rowsPerRep; ++rep) {
      // Registers of this rep in wgmma's order: d[i] is row
      // 8 * (i / 2 % 2), column 8 * (i / 4) + i % 2 of lane 0's fragment.
      SmallVector<int64_t> index;
      for (int64_t i = 0; i < perInstr; ++i) {
        auto r = acc.findRegister(
            {rep * rowsPerRep + 8 * (i / 2 % 2), 8 * (i / 4) + i % 2});
        if (!r)
          return op.emitOpError() << "accumulator is not in a wgmma layout";
        index.push_back(*r);
      }
      for (int64_t kk = 0; kk < k / kStep; ++kk) {
        SmallVector<Value> operands;
        for (int64_t i : index)
          operands.push_back(regs[i]);
        std::string asmStr = "{\n.reg .b64 db;\n.reg .b32 dbl;\n";
        if (aT) {
          asmStr += ".reg .b64 da;\n.reg .b32 dal;\n";
          operands.push_back(aWord0);
          asmStr += descAsm("da", aOp,
                            slotByteOffset(aT, {rep * rowsPerRep, kk * kStep}),
                            descWords(*aDesc).second);
        } else {
          int64_t first = 4 * (rep * (k / kStep) + kk);
          operands.append(aWords.begin() + first, aWords.begin() + first + 4);
        }
        operands.push_back(bWord0);
        asmStr += descAsm("db", bOp, slotByteOffset(bT, {kk * kStep, 0}),
                          descWords(*bDesc).second);
        SmallVector<Value> out = e.ptx(asmStr + asmInstr, constraints,
                                       accTypes, operands, /*sideEffects=*/true);
        for (auto [i, v] : llvm::zip(index, out))
          regs[i] = v;
      }
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(rewriter, e.loc);
    rewriter.replaceOpWithMultiple(op, {regs});
    return success();
  }
};

/// The PTX that keeps a wgmma wait below the computation of `after` (see
/// tgpu.wgmma_wait): stores of their words, four a `st.shared.v4`, under a
/// predicate that is false at run time (dynamic shared memory is empty),
/// so the wait, which ptxas does not move above a store, comes after the
/// math. Appends the operands ($first on: after the tied outputs and
/// inputs) and their constraints.
std::string pinAfter(Emitter &e, ArrayRef<ValueRange> after, unsigned first,
                     std::string &constraints,
                     SmallVectorImpl<Value> &operands) {
  SmallVector<Value> words;
  for (ValueRange r : after)
    for (Value v : r) {
      Value w = e.toBits(v);
      unsigned bits = w.getType().getIntOrFloatBitWidth();
      if (bits < 32)
        w = LLVM::ZExtOp::create(e.b, e.loc, e.b.getI32Type(), w);
      words.push_back(w);
    }
  if (words.empty())
    return "";
  Value size = NVVM::DynamicSmemSize::create(e.b, e.loc, e.b.getI32Type());
  Value never = e.eq(size, e.i32(0));
  Value addr = LLVM::PtrToIntOp::create(e.b, e.loc, e.b.getI32Type(),
                                        e.smemStart());
  unsigned n = first;
  auto operand = [&](Value v, const char *c) {
    operands.push_back(v);
    constraints += (constraints.empty() ? "" : ",") + std::string(c);
    return "$" + std::to_string(n++);
  };
  std::string pred = operand(never, "b"), base = operand(addr, "r");
  std::string text;
  for (size_t i = 0; i < words.size();) {
    size_t left = words.size() - i, m = left >= 4 ? 4 : left >= 2 ? 2 : 1;
    text += "@" + pred + " st.shared" +
            (m == 1 ? "" : ".v" + std::to_string(m)) + ".b32 [" + base + "], ";
    std::string list;
    for (size_t k = 0; k < m; ++k)
      list += (k ? ", " : "") + operand(words[i + k], "r");
    text += (m == 1 ? list : "{" + list + "}") + ";\n";
    i += m;
  }
  return text;
}

struct WGMMAWaitLowering : public OpConversionPattern<WGMMAWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WGMMAWaitOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    // The values pass through the wait (tied registers), so nothing reads
    // them before it; `after`'s pinning stores come first.
    SmallVector<SmallVector<Value>> results = tiedAsm(
        e, adaptor.getValues(),
        "wgmma.wait_group.sync.aligned " + std::to_string(op.getPendings()) +
            ";",
        [&](unsigned first, std::string &constraints,
            SmallVectorImpl<Value> &operands) {
          return pinAfter(e, adaptor.getAfter(), first, constraints, operands);
        });
    SmallVector<ValueRange> ranges(results.begin(), results.end());
    rewriter.replaceOpWithMultiple(op, ranges);
    return success();
  }
};

} // namespace

void tilec::populateWGMMAPatterns(TypeConverter &converter,
                                  RewritePatternSet &patterns) {
  patterns.add<WGMMALowering,     // tgpu.wgmma
               WGMMAWaitLowering> // tgpu.wgmma_wait
      (converter, patterns.getContext());
}
