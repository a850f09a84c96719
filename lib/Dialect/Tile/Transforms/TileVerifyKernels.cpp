//===- TileVerifyKernels.cpp - check tiles in kernels ---------------------===//
//
// `arith`, `math` and `scf` accept any tensor. This pass checks that every
// tensor value in the module is a valid tile, and that every math op is
// one the lowering supports, so that bad programs get a diagnostic at the
// op instead of failing in lowering.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/TileDialect.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/CallInterfaces.h"

#define DEBUG_TYPE "tile-verify-kernels"

namespace tilec {
#define GEN_PASS_DEF_TILEVERIFYKERNELS
#include "tilec/Dialect/Tile/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

/// The math ops tilec lowers (docs/OPS.md, "Math"): instructions, the
/// special-function unit's approximations, libdevice.
constexpr llvm::StringLiteral kMathOps[] = {
    "absf",  "absi",     "acos",     "acosh",     "asin",   "asinh",
    "atan",  "atan2",    "atanh",    "cbrt",      "ceil",   "copysign",
    "cos",   "cosh",     "ctlz",     "ctpop",     "cttz",   "erf",
    "erfc",  "exp",      "exp2",     "expm1",     "floor",  "fma",
    "fpowi", "isfinite", "isinf",    "isnan",     "isnormal", "log",
    "log10", "log1p",    "log2",     "powf",      "round",  "roundeven",
    "rsqrt", "sin",      "sincos",   "sinh",      "sqrt",   "tan",
    "tanh",  "trunc"};

/// The value of an integer computed from constants only (folding each op
/// on the way), if it is one.
std::optional<int64_t> foldedInt(Value v, int depth = 0) {
  Operation *def = v.getDefiningOp();
  if (!def || depth > 16 || def->getNumResults() != 1)
    return std::nullopt;
  SmallVector<Attribute> operands;
  for (Value o : def->getOperands()) {
    std::optional<int64_t> c = foldedInt(o, depth + 1);
    if (!c)
      return std::nullopt;
    operands.push_back(IntegerAttr::get(o.getType(), *c));
  }
  SmallVector<OpFoldResult> folded;
  if (failed(def->fold(operands, folded)) || folded.size() != 1)
    return std::nullopt;
  auto attr = dyn_cast_if_present<IntegerAttr>(
      dyn_cast_if_present<Attribute>(folded[0]));
  if (!attr)
    return std::nullopt;
  return attr.getValue().getSExtValue();
}

/// Why `name` cannot name a kernel, or empty. Names reach PTX, the
/// bundle, C (--emit=c: a function and a struct a kernel) and Python, so
/// they are C identifiers, not C keywords, and short enough for the
/// runtime with the suffixes variants add.
std::string badKernelName(StringRef name) {
  static constexpr llvm::StringLiteral kKeywords[] = {
      "auto", "break", "case", "char", "const", "continue", "default", "do",
      "double", "else", "enum", "extern", "float", "for", "goto", "if",
      "inline", "int", "long", "register", "restrict", "return", "short",
      "signed", "sizeof", "static", "struct", "switch", "typedef", "union",
      "unsigned", "void", "volatile", "while", "bool", "true", "false",
      "_Bool", "_Complex", "_Imaginary", "_Alignas", "_Alignof", "_Atomic",
      "_Generic", "_Noreturn", "_Static_assert", "_Thread_local"};
  if (name.empty())
    return "a kernel needs a name";
  if (name.size() > 512)
    return "a kernel name is at most 512 characters";
  auto alpha = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  };
  for (auto [i, c] : llvm::enumerate(name))
    if (!alpha(c) && !(i > 0 && c >= '0' && c <= '9'))
      return "a kernel name is a C identifier (letters, digits, '_', not "
             "starting with a digit)";
  if (llvm::is_contained(kKeywords, name))
    return "a kernel name cannot be a C keyword";
  // The names the back end and the device runtime own: C's reserved
  // identifiers, which NVVM (__nvvm_reflect), libdevice (__nv_sinf) and
  // CUDA (__assertfail) use; the compiler's own symbols (tilec_smem); the
  // device runtime's functions. A kernel by such a name would be taken
  // for theirs (or silently deleted, as __nvvm_reflect was).
  if (name.starts_with("__") ||
      (name.size() > 1 && name[0] == '_' && name[1] >= 'A' && name[1] <= 'Z'))
    return "names beginning with '__' or '_' and a capital letter are "
           "reserved (NVVM, libdevice and CUDA use them)";
  if (name.starts_with("tilec_"))
    return "the 'tilec_' prefix is reserved for the compiler's own symbols";
  if (llvm::is_contained({"vprintf", "malloc", "free"}, name))
    return "'" + name.str() + "' is a function of CUDA's device runtime";
  return "";
}

/// Why `op` (a tile.sort or tile.topk in a kernel) cannot compile, or
/// empty: the network is unrolled over the registers that hold its lines,
/// and past 128 32-bit words of keys and values a thread ptxas spills and
/// takes minutes (32x1024 i32 in one warp: 333 s, 2.8 GB).
std::string sortTooLarge(Operation *op) {
  auto func = op->getParentOfType<func::FuncOp>();
  if (!func || !func->hasAttr(tile::kKernelAttr))
    return "";
  int64_t threads = 32 * tile::getNumWarps(func), words = 0;
  for (Value v : op->getOperands())
    if (auto t = dyn_cast<RankedTensorType>(v.getType()))
      words += llvm::divideCeil(t.getNumElements(), threads) *
               llvm::divideCeil(
                   getElementTypeOrSelf(t).getIntOrFloatBitWidth(), 32);
  constexpr int64_t kMostWords = 128;
  if (words <= kMostWords)
    return "";
  return "'" + op->getName().getStringRef().str() + "' would keep " +
         std::to_string(words) +
         " 32-bit words of keys and values a thread in registers with " +
         std::to_string(threads) + " threads, more than the " +
         std::to_string(kMostWords) +
         " a sorting network compiles to: use more warps (tile.num_warps) "
         "or fewer lines a program";
}

/// Whether the compiler sets attribute `name` (a program may not: a hand-set
/// one would reach the launch metadata unchecked).
bool isInternalAttr(StringRef name) {
  return name.starts_with("tgpu.") || name.starts_with("tile.pipeline.") ||
         llvm::is_contained({tile::kSharedMemoryAttr, tile::kTmaFallbackAttr,
                             tile::kPlainVariantAttr,
                             tile::kPlainVariantOfAttr, tile::kVariantsAttr,
                             tile::kVariantOfAttr, tile::kCostAttr,
                             tile::kWorkspaceAttr, tile::kSemaphoresAttr},
                            name);
}

struct TileVerifyKernels
    : public tilec::impl::TileVerifyKernelsBase<TileVerifyKernels> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool failedAny = false;
    auto check = [&](Value v, Location loc) {
      if (!isa<TensorType>(v.getType()))
        return;
      if (auto err = tile::checkTileType(v.getType())) {
        emitError(loc) << *err;
        failedAny = true;
      }
    };
    // A module holds functions: an op between them runs nowhere (a tgpu
    // op there crashed the translation to LLVM IR; a tile op was dropped
    // in silence).
    for (Operation &op : module.getBody()->getOperations())
      if (!isa<func::FuncOp>(op)) {
        op.emitError() << "'" << op.getName()
                       << "' is outside every function: a program's ops "
                          "belong in a kernel (func.func)";
        failedAny = true;
      }
    module.walk([&](Operation *op) {
      for (NamedAttribute attr : op->getDiscardableAttrs())
        if (isInternalAttr(attr.getName().getValue())) {
          op->emitError() << "'" << attr.getName().getValue()
                          << "' is set by the compiler, not by a program";
          failedAny = true;
        }
      // A constant step that is not positive never ends (0) or never
      // runs as written (scf.for's step is positive).
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        std::optional<int64_t> step = foldedInt(loop.getStep());
        if (step && *step <= 0) {
          loop.emitError() << "loop step is " << *step
                           << "; scf.for needs a positive step";
          failedAny = true;
        }
      }
      // Kernels do not call: the lowering has no device functions (a call
      // of a kernel, itself included, failed deep in the LLVM conversion).
      if (isa<CallOpInterface>(op)) {
        InFlightDiagnostic d = op->emitError() << "calls are not supported in a kernel";
        if (auto call = dyn_cast<func::CallOp>(op)) {
          auto in = op->getParentOfType<func::FuncOp>();
          d << " ('" << (in ? in.getSymName() : StringRef("?")) << "' calls '"
            << call.getCallee() << "'"
            << (in && in.getSymName() == call.getCallee() ? ", itself" : "")
            << "): write the callee's ops in the kernel";
        }
        failedAny = true;
      }
      if (isa<math::MathDialect>(op->getDialect())) {
        StringRef name = op->getName().stripDialect();
        if (!llvm::is_contained(kMathOps, name)) {
          InFlightDiagnostic d = op->emitError()
                                 << "'" << op->getName()
                                 << "' is not supported; the math ops tilec "
                                    "lowers are";
          for (StringRef m : kMathOps)
            d << " " << m;
          failedAny = true;
        }
      }
      // Floats wider than f64 have neither instructions nor libdevice
      // functions (the lowering failed without a location).
      for (Value r : op->getResults())
        if (auto ft = dyn_cast<FloatType>(getElementTypeOrSelf(r.getType()));
            ft && ft.getWidth() > 64) {
          op->emitError() << "'" << op->getName() << "' makes a value of "
                          << ft << ", which the GPU has no arithmetic for; "
                          << "the widest float tilec computes in is f64";
          failedAny = true;
        }
      if (isa<tile::SortOp, tile::TopKOp>(op))
        if (std::string why = sortTooLarge(op); !why.empty()) {
          op->emitError() << why;
          failedAny = true;
        }
      for (Value r : op->getResults())
        check(r, op->getLoc());
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            check(arg, op->getLoc());
    });
    bool anyKernel = false;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (!func->hasAttr(tile::kKernelAttr)) {
        if (!func.isExternal()) {
          func.emitError() << "function '" << func.getSymName()
                           << "' is not a kernel: tilec compiles functions "
                              "marked tile.kernel";
          failedAny = true;
        }
        continue;
      }
      anyKernel = true;
      std::string bad = badKernelName(func.getSymName());
      if (!bad.empty()) {
        func.emitError() << "kernel '" << func.getSymName() << "': " << bad;
        failedAny = true;
      }
    }
    if (!anyKernel && !failedAny) {
      // An empty file's module has no position: point at its start.
      Location loc = module.getLoc();
      if (auto fl = dyn_cast<FileLineColLoc>(loc); fl && fl.getLine() == 0)
        loc = FileLineColLoc::get(fl.getFilename(), 1, 1);
      emitError(loc) << "no kernel in the module: mark a func.func with "
                            "'tile.kernel'";
      failedAny = true;
    }
    if (failedAny)
      signalPassFailure();
  }
};
} // namespace
