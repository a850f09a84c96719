//===- DebugOpsToLLVM.cpp - tile.print and tile.assert --------------------===//
//
// Both call the CUDA system calls the driver provides: vprintf (a format
// string and a buffer of the arguments, promoted as C varargs are) and
// __assertfail (which stops the kernel with CUDA_ERROR_ASSERT). An element
// held by several threads prints once, from its owner (see Owners); a
// scalar prints from the first thread.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/xxhash.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// The declaration of the external function `name` of type `type`.
LLVM::LLVMFuncOp declare(OpBuilder &b, ModuleOp module, StringRef name,
                         LLVM::LLVMFunctionType type) {
  if (auto f = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return f;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  return LLVM::LLVMFuncOp::create(b, module.getLoc(), name, type);
}

/// A generic pointer to a NUL-terminated constant copy of `text`.
Value constantString(Emitter &e, ModuleOp module, StringRef text) {
  std::string name =
      "tilec_str_" + llvm::utohexstr(llvm::xxh3_64bits(text), true);
  if (!module.lookupSymbol<LLVM::GlobalOp>(name)) {
    OpBuilder::InsertionGuard guard(e.b);
    e.b.setInsertionPointToStart(module.getBody());
    std::string bytes = text.str();
    bytes.push_back('\0');
    auto type = LLVM::LLVMArrayType::get(e.b.getI8Type(), bytes.size());
    LLVM::GlobalOp::create(e.b, module.getLoc(), type, /*isConstant=*/true,
                           LLVM::Linkage::Internal, name,
                           e.b.getStringAttr(bytes));
  }
  auto ptrTy = LLVM::LLVMPointerType::get(e.b.getContext());
  return LLVM::AddressOfOp::create(e.b, e.loc, ptrTy, name);
}

/// vprintf(format, args): the arguments promoted (integers narrower than
/// 32 bits to i32, floats to f64) in a stack buffer.
void printf(Emitter &e, ModuleOp module, StringRef format,
            ArrayRef<Value> args) {
  MLIRContext *ctx = e.b.getContext();
  auto ptrTy = LLVM::LLVMPointerType::get(ctx);
  auto i32 = e.b.getI32Type();
  auto vprintf = declare(e.b, module, "vprintf",
                         LLVM::LLVMFunctionType::get(i32, {ptrTy, ptrTy}));
  Value fmt = constantString(e, module, format);
  Value buffer = LLVM::ZeroOp::create(e.b, e.loc, ptrTy);
  if (!args.empty()) {
    SmallVector<Value> promoted;
    for (Value v : args) {
      Type t = v.getType();
      if (isa<FloatType>(t) && !t.isF64())
        v = arith::ExtFOp::create(e.b, e.loc, e.b.getF64Type(), v);
      else if (t.isIndex())
        v = arith::IndexCastOp::create(e.b, e.loc, e.b.getI64Type(), v);
      else if (t.isInteger(1))
        v = arith::ExtUIOp::create(e.b, e.loc, i32, v);
      else if (isa<IntegerType>(t) && t.getIntOrFloatBitWidth() < 32)
        v = arith::ExtSIOp::create(e.b, e.loc, i32, v);
      promoted.push_back(v);
    }
    SmallVector<Type> fields;
    for (Value v : promoted)
      fields.push_back(v.getType());
    auto structTy = LLVM::LLVMStructType::getLiteral(ctx, fields);
    buffer = LLVM::AllocaOp::create(e.b, e.loc, ptrTy, structTy,
                                    e.i32(1), /*alignment=*/8);
    for (auto [i, v] : llvm::enumerate(promoted)) {
      Value field = LLVM::GEPOp::create(
          e.b, e.loc, ptrTy, structTy, buffer,
          ArrayRef<LLVM::GEPArg>{0, int32_t(i)});
      LLVM::StoreOp::create(e.b, e.loc, v, field);
    }
  }
  LLVM::CallOp::create(e.b, e.loc, vprintf, ValueRange{fmt, buffer});
}

/// The printf conversion of a value of type `t`.
std::string conversion(Type t) {
  if (isa<FloatType>(t))
    return t.isF64() ? "%.17g" : "%.9g";
  if (t.isInteger(64) || t.isIndex())
    return "%lld";
  return "%d";
}

std::string escape(StringRef s) {
  std::string out;
  for (char c : s) {
    out.push_back(c);
    if (c == '%')
      out.push_back('%');
  }
  return out;
}

/// The program id (x, y, z).
SmallVector<Value> programIds(Emitter &e) {
  auto i32 = e.b.getI32Type();
  return {NVVM::BlockIdXOp::create(e.b, e.loc, i32),
          NVVM::BlockIdYOp::create(e.b, e.loc, i32),
          NVVM::BlockIdZOp::create(e.b, e.loc, i32)};
}

/// "[%d, %d]" and the coordinates of register `r` of a tile.
std::string coordinates(Emitter &e, ThreadCoords &coords, int64_t r,
                        unsigned rank, SmallVectorImpl<Value> &args) {
  std::string s = "[";
  for (unsigned d = 0; d < rank; ++d) {
    s += d ? ", %d" : "%d";
    args.push_back(coords.get(r, d));
  }
  return s + "]";
}

/// Runs `body` in an scf.if on `cond` (i1), or directly if it is null.
void guarded(Emitter &e, Value cond, function_ref<void()> body) {
  if (!cond) {
    body();
    return;
  }
  auto ifOp = scf::IfOp::create(e.b, e.loc, cond, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(e.b);
  e.b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  body();
}

Value andMaybe(Emitter &e, Value a, Value b) {
  return !a ? b : !b ? a : e.andI(a, b);
}

struct PrintOpLowering : public OpConversionPattern<PrintOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(PrintOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    auto module = op->getParentOfType<ModuleOp>();
    SmallVector<Value> pid = programIds(e);
    Value onProgram;
    if (auto p = op.getProgram())
      for (unsigned i = 0; i < 3; ++i)
        onProgram = andMaybe(e, onProgram, e.eq(pid[i], e.i32((*p)[i])));
    std::string head = "pid (%d, %d, %d) " + escape(op.getPrefix());
    for (auto [i, arg] : llvm::enumerate(op.getArgs())) {
      std::string name = head;
      if (op.getArgs().size() > 1)
        name += " arg" + std::to_string(i);
      ValueRange regs = adaptor.getArgs()[i];
      auto tt = dyn_cast<RankedTensorType>(arg.getType());
      if (!tt) {
        Value first = e.eq(e.threadId(), e.i32(0));
        guarded(e, andMaybe(e, onProgram, first), [&] {
          SmallVector<Value> args(pid);
          args.push_back(regs.front());
          printf(e, module,
                 name + " = " + conversion(arg.getType()) + "\n", args);
        });
        continue;
      }
      LinearLayout layout = getLayout(tt);
      Owners owners(e, layout);
      ThreadCoords coords(e, layout);
      guarded(e, andMaybe(e, onProgram, owners.thread), [&] {
        for (int64_t r = 0; r < int64_t(regs.size()); ++r) {
          if (owners.first[r] != r)
            continue;
          SmallVector<Value> args(pid);
          std::string at = coordinates(e, coords, r, tt.getRank(), args);
          args.push_back(regs[r]);
          printf(e, module,
                 name + at + " = " + conversion(tt.getElementType()) + "\n",
                 args);
        }
      });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// The file and line of `loc`, if it has one.
std::pair<std::string, unsigned> fileLine(Location loc) {
  std::pair<std::string, unsigned> r{"<unknown>", 0};
  loc->walk([&](Location l) {
    if (auto fl = dyn_cast<FileLineColLoc>(l)) {
      r = {fl.getFilename().str(), fl.getLine()};
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return r;
}

struct AssertOpLowering : public OpConversionPattern<AssertOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AssertOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc()};
    auto module = op->getParentOfType<ModuleOp>();
    MLIRContext *ctx = rewriter.getContext();
    auto ptrTy = LLVM::LLVMPointerType::get(ctx);
    auto assertfail = declare(
        e.b, module, "__assertfail",
        LLVM::LLVMFunctionType::get(
            LLVM::LLVMVoidType::get(ctx),
            {ptrTy, ptrTy, e.b.getI32Type(), ptrTy, e.b.getI64Type()}));
    auto [file, line] = fileLine(op.getLoc());
    std::string function = "kernel";
    if (auto f = op->getParentOfType<func::FuncOp>())
      function = f.getSymName().str();
    std::string where = escape(file) + ":" + std::to_string(line) + ": ";
    SmallVector<Value> pid = programIds(e);
    auto tt = dyn_cast<RankedTensorType>(op.getCond().getType());
    ValueRange regs = adaptor.getCond();
    // ThreadCoords keeps a reference to the layout.
    LinearLayout layout = tt ? getLayout(tt) : LinearLayout();
    std::optional<ThreadCoords> coords;
    std::optional<Owners> owners;
    if (tt) {
      coords.emplace(e, layout);
      owners.emplace(e, layout);
    }
    for (int64_t r = 0; r < int64_t(regs.size()); ++r) {
      // Copies of an element leave the report to its owner.
      if (owners && owners->first[r] != r)
        continue;
      Value failed = arith::XOrIOp::create(
          e.b, e.loc, regs[r],
          arith::ConstantIntOp::create(e.b, e.loc, e.b.getI1Type(), 1));
      // A scalar: the first thread reports.
      failed = andMaybe(e, failed,
                        owners ? owners->thread
                               : Value(e.eq(e.threadId(), e.i32(0))));
      guarded(e, failed, [&] {
        SmallVector<Value> args(pid);
        std::string at =
            tt ? " at " + coordinates(e, *coords, r, tt.getRank(), args) : "";
        printf(e, module,
               where + "pid (%d, %d, %d)" + at + ": assertion failed: " +
                   escape(op.getMessage()) + "\n",
               args);
        LLVM::CallOp::create(
            e.b, e.loc, assertfail,
            ValueRange{constantString(e, module, op.getMessage()),
                       constantString(e, module, file), e.i32(line),
                       constantString(e, module, function), e.i64(1)});
      });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void tilec::populateTileDebugPatterns(TypeConverter &converter,
                                      RewritePatternSet &patterns) {
  patterns.add<PrintOpLowering,  // tile.print
               AssertOpLowering  // tile.assert
               >(converter, patterns.getContext());
}
