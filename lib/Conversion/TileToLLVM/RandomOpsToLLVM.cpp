//===- RandomOpsToLLVM.cpp - tile.philox and tile.rand --------------------===//
//
// Philox4x32-10 per register: ten rounds of two 32x32->64 multiplies
// (mul.wide.u32) and xors, the key bumped by the Weyl constants between
// rounds. tile.rand turns the words into floats: uniform from 24 bits,
// normal by Box-Muller on the SFU's approximations (lg2, cos, sqrt).
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include <array>

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// Philox4x32-10 of one counter under one key.
std::array<Value, 4> philox(Emitter &e, std::array<Value, 4> c, Value k0,
                            Value k1) {
  constexpr uint32_t kM0 = 0xD2511F53, kM1 = 0xCD9E8D57, kW0 = 0x9E3779B9,
                     kW1 = 0xBB67AE85;
  OpBuilder &b = e.b;
  Type i64 = b.getI64Type(), i32 = b.getI32Type();
  // (hi, lo) of the 64-bit product of `x` and the constant `m`.
  auto mulHiLo = [&](Value x, uint32_t m) {
    Value w = arith::MulIOp::create(
        b, e.loc, arith::ExtUIOp::create(b, e.loc, i64, x),
        arith::ConstantIntOp::create(b, e.loc, i64, int64_t(m)));
    Value hi = arith::TruncIOp::create(
        b, e.loc, i32,
        arith::ShRUIOp::create(
            b, e.loc, w, arith::ConstantIntOp::create(b, e.loc, i64, 32)));
    return std::pair{hi, arith::TruncIOp::create(b, e.loc, i32, w).getResult()};
  };
  for (int round = 0; round < 10; ++round) {
    if (round) {
      k0 = e.add(k0, e.i32(int32_t(kW0)));
      k1 = e.add(k1, e.i32(int32_t(kW1)));
    }
    auto [hi0, lo0] = mulHiLo(c[0], kM0);
    auto [hi1, lo1] = mulHiLo(c[2], kM1);
    c = {e.xorI(e.xorI(hi1, c[1]), k0), lo1, e.xorI(e.xorI(hi0, c[3]), k1),
         lo0};
  }
  return c;
}

struct PhiloxOpLowering : public OpConversionPattern<PhiloxOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(PhiloxOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    Value k0 = adaptor.getK0().front(), k1 = adaptor.getK1().front();
    std::array<SmallVector<Value>, 4> out;
    for (size_t r = 0; r < adaptor.getC0().size(); ++r) {
      std::array<Value, 4> w =
          philox(e,
                 {adaptor.getC0()[r], adaptor.getC1()[r], adaptor.getC2()[r],
                  adaptor.getC3()[r]},
                 k0, k1);
      for (int i = 0; i < 4; ++i)
        out[i].push_back(w[i]);
    }
    rewriter.replaceOpWithMultiple(
        op, {ValueRange(out[0]), ValueRange(out[1]), ValueRange(out[2]),
             ValueRange(out[3])});
    return success();
  }
};

struct RandOpLowering : public OpConversionPattern<RandOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(RandOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    OpBuilder &b = rewriter;
    Type f32 = b.getF32Type();
    Value k0 = adaptor.getK0().front(), k1 = adaptor.getK1().front();
    Value zero = e.i32(0);
    auto cf = [&](float v) {
      return arith::ConstantOp::create(b, e.loc, b.getF32FloatAttr(v));
    };
    // 24 bits of `w` as a float in [0, 1) (plus `bias` * 2^-24).
    auto unit = [&](Value w, int bias) {
      Value bits = arith::ShRUIOp::create(b, e.loc, w, e.i32(8));
      if (bias)
        bits = e.add(bits, e.i32(bias));
      Value f = arith::UIToFPOp::create(b, e.loc, f32, bits);
      return arith::MulFOp::create(b, e.loc, f, cf(0x1p-24f)).getResult();
    };
    auto sfu = [&](StringRef instr, Value x) {
      return e.ptx((instr + " $0, $1;").str(), "=f,f", {f32}, {x}).front();
    };
    bool normal = op.getDistribution() == RandomDistribution::Normal;
    SmallVector<Value> out;
    for (Value offset : adaptor.getOffsets()) {
      std::array<Value, 4> w = philox(e, {offset, zero, zero, zero}, k0, k1);
      if (!normal) {
        out.push_back(unit(w[0], 0));
        continue;
      }
      // sqrt(-2 ln u1) = sqrt(-2 ln 2 * lg2 u1), u1 in (0, 1].
      Value u1 = unit(w[0], 1), u2 = unit(w[1], 0);
      Value lg = sfu("lg2.approx.f32", u1);
      Value radius = sfu("sqrt.approx.f32",
                         arith::MulFOp::create(b, e.loc, lg,
                                               cf(-2.0f * 0.69314718f)));
      Value angle = arith::MulFOp::create(b, e.loc, u2, cf(6.28318531f));
      Value c = sfu("cos.approx.f32", angle);
      out.push_back(arith::MulFOp::create(b, e.loc, radius, c));
    }
    rewriter.replaceOpWithMultiple(op, {out});
    return success();
  }
};

} // namespace

void tilec::populateTileRandomPatterns(TypeConverter &converter,
                                       RewritePatternSet &patterns) {
  patterns.add<PhiloxOpLowering, // tile.philox
               RandOpLowering    // tile.rand
               >(converter, patterns.getContext());
}
