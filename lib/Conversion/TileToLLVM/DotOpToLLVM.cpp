//===- DotOpToLLVM.cpp - tile.dot to mma.sync -----------------------------===//
//
// Operands arrive in the mma.sync fragment layouts (tile-assign-layouts puts
// them there), so each thread already holds its fragments. For every
// (m, n, k) fragment the registers are found by their coordinates in the
// layouts, packed into 32-bit words and fed to one mma.sync.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "tilec/Dialect/TGPU/TGPUDialect.h"

#include <set>

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// The mma.sync of an m16n8 fragment: K = 8 (tf32), 16 (16-bit) or 32
/// (8-bit) a step.
std::string mmaInstr(Type in, Type acc) {
  unsigned bits = in.getIntOrFloatBitWidth();
  std::string t = isa<BFloat16Type>(in)       ? "bf16"
                  : isa<Float16Type>(in)      ? "f16"
                  : isa<Float8E4M3FNType>(in) ? "e4m3"
                  : isa<Float8E5M2Type>(in)   ? "e5m2"
                  : in.isInteger(8)           ? "s8"
                                              : "tf32";
  std::string a = acc.isF32() ? "f32" : acc.isF16() ? "f16" : "s32";
  return "mma.sync.aligned.m16n8k" + std::to_string(256 / bits) +
         ".row.col." + a + "." + t + "." + t + "." + a;
}

struct DotOpLowering : public OpConversionPattern<DotOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(DotOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // A dot selected for wgmma is lowered by the pass that builds its
    // shared-memory operands; one that reaches here was left behind.
    auto mma = op->getAttrOfType<tgpu::MMAAttr>(tgpu::kMMAAttr);
    if (mma && mma.isWGMMA())
      return op.emitError() << "a tile.dot selected for wgmma "
                               "(#tgpu.mma) outside a warp-specialized loop "
                               "cannot be lowered yet";
    Emitter e{rewriter, op.getLoc()};
    auto aTy = cast<RankedTensorType>(op.getA().getType());
    auto cTy = cast<RankedTensorType>(op.getType());
    Type in = aTy.getElementType(), accTy = cTy.getElementType();
    LinearLayout la = getLayout(aTy), lb = getLayout(op.getB().getType()),
                 lc = getLayout(cTy);
    // The warp split the layouts were built with.
    unsigned bits = in.getIntOrFloatBitWidth();
    int numWarps = int(lc.getNumWarps());
    bool matched = false;
    for (int wm = 1; wm <= numWarps && !matched; wm *= 2) {
      int wn = numWarps / wm;
      matched = la == LinearLayout::mmaOperand(0, la.getShape(), bits, wm, wn) &&
                lb == LinearLayout::mmaOperand(1, lb.getShape(), bits, wm, wn) &&
                lc == LinearLayout::mmaAccumulator(lc.getShape(), wm, wn);
    }
    // A wgmma layout whose warpgroups split N (each warpgroup a chunk of N),
    // run as mma.sync.
    auto split = LinearLayout::wgmmaWarpGroups(lc.getShape()[0],
                                               lc.getShape()[1], numWarps);
    if (!matched && split && split->second > 1) {
      auto [wgM, wgN] = *split;
      matched =
          la == LinearLayout::mmaOperand(0, la.getShape(), bits, 4 * wgM,
                                         wgN) &&
          lb == LinearLayout::wgmmaOperandB(lb.getShape(), bits, wgM, wgN) &&
          lc == LinearLayout::wgmmaAccumulator(lc.getShape(), wgM, wgN);
    }
    if (!matched)
      return op.emitOpError() << "operands must be in mma.sync layouts; run "
                                 "tile-assign-layouts first";
    SmallVector<Value> a(adaptor.getA().begin(), adaptor.getA().end());
    SmallVector<Value> b(adaptor.getB().begin(), adaptor.getB().end());
    // f32 inputs run as tf32, rounded to nearest (mma.sync would drop the
    // low 13 bits of the mantissa), once per register.
    if (in.isF32())
      for (SmallVector<Value> *regs : {&a, &b})
        for (Value &v : *regs)
          v = e.ptx("cvt.rna.tf32.f32 $0, $1;", "=r,f",
                    {rewriter.getI32Type()}, {v})[0];
    SmallVector<Value> c(adaptor.getAcc().begin(), adaptor.getAcc().end());

    // Fragment origins held by lane 0 of warp 0; other threads hold the
    // same registers at their own offsets.
    int64_t kStep = 256 / bits;
    std::set<int64_t> ms, ns, ks;
    for (int64_t r = 0; r < lc.getNumRegisters(); ++r) {
      auto co = lc.applyIn(InDim::Register, r);
      ms.insert(co[0] & ~15);
      ns.insert(co[1] & ~7);
    }
    for (int64_t r = 0; r < la.getNumRegisters(); ++r)
      ks.insert(la.applyIn(InDim::Register, r)[1] & ~(kStep - 1));

    auto reg = [&](const LinearLayout &l, int64_t x, int64_t y) {
      return *l.findRegister({x, y});
    };
    // Packs the registers at consecutive K positions into one word.
    int perWord = 32 / bits;
    auto wordA = [&](int64_t m, int64_t k) {
      SmallVector<Value> elts;
      for (int i = 0; i < perWord; ++i)
        elts.push_back(a[reg(la, m, k + i)]);
      return e.packWords(elts)[0];
    };
    auto wordB = [&](int64_t k, int64_t n) {
      SmallVector<Value> elts;
      for (int i = 0; i < perWord; ++i)
        elts.push_back(b[reg(lb, k + i, n)]);
      return e.packWords(elts)[0];
    };
    int64_t kHalf = kStep / 2;
    std::string instr = mmaInstr(in, accTy);
    bool f16Acc = accTy.isF16();
    std::string asmStr =
        instr + (f16Acc ? " {$0, $1}, {$2, $3, $4, $5}, {$6, $7}, {$8, $9};"
                        : " {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, "
                          "{$10, $11, $12, $13};");
    bool s32Acc = accTy.isInteger(32);
    std::string constraints = f16Acc   ? "=r,=r,r,r,r,r,r,r,0,1"
                              : s32Acc ? "=r,=r,=r,=r,r,r,r,r,r,r,0,1,2,3"
                                       : "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3";
    for (int64_t k0 : ks)
      for (int64_t m0 : ms)
        for (int64_t n0 : ns) {
          SmallVector<Value> operands{wordA(m0, k0), wordA(m0 + 8, k0),
                                      wordA(m0, k0 + kHalf),
                                      wordA(m0 + 8, k0 + kHalf),
                                      wordB(k0, n0), wordB(k0 + kHalf, n0)};
          int64_t ci[4] = {reg(lc, m0, n0), reg(lc, m0, n0 + 1),
                           reg(lc, m0 + 8, n0), reg(lc, m0 + 8, n0 + 1)};
          if (f16Acc) {
            operands.push_back(e.packWords({c[ci[0]], c[ci[1]]})[0]);
            operands.push_back(e.packWords({c[ci[2]], c[ci[3]]})[0]);
            SmallVector<Value> d =
                e.ptx(asmStr, constraints,
                      {rewriter.getI32Type(), rewriter.getI32Type()}, operands);
            SmallVector<Value> lo = e.unpackWords({d[0]}, accTy, 2);
            SmallVector<Value> hi = e.unpackWords({d[1]}, accTy, 2);
            c[ci[0]] = lo[0], c[ci[1]] = lo[1], c[ci[2]] = hi[0],
            c[ci[3]] = hi[1];
          } else {
            for (int64_t i : ci)
              operands.push_back(c[i]);
            Type t = accTy;
            SmallVector<Value> d =
                e.ptx(asmStr, constraints, {t, t, t, t}, operands);
            for (int i = 0; i < 4; ++i)
              c[ci[i]] = d[i];
          }
        }
    // Registers that replicate another (zero bases) take its value.
    for (int64_t r = 0; r < lc.getNumRegisters(); ++r)
      c[r] = c[*lc.findRegister(lc.applyIn(InDim::Register, r))];
    rewriter.replaceOpWithMultiple(op, {c});
    return success();
  }
};
} // namespace

void tilec::populateTileDotPatterns(TypeConverter &converter,
                                    RewritePatternSet &patterns) {
  patterns.add<DotOpLowering>(converter, patterns.getContext()); // tile.dot
}
