//===- tilec.cpp - the tilec driver ---------------------------------------===//
//
//   tilec compile FILE|- [-o OUT] [--arch=sm_90a|sm_100a]
//                 [--emit=mlir|llvm|ptx|cubin|bundle|c] [-O0..3]
//                 [--print-ir-after=PASS[,PASS...]|all]
//
// Exit 0 on success, 1 on any user error (with a diagnostic), never a crash.
//
//===----------------------------------------------------------------------===//

#include "LayoutCommand.h"
#include "tilec/Dialect/Tile/TargetInfo.h"
#include "Pipeline.h"
#include "Report.h"

#include "tilec/Dialect/TGPU/TGPUDialect.h"
#include "tilec/Dialect/Tile/TileDialect.h"
#include "tilec/Target/Target.h"
#include "tilec/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

#include <cerrno>
#include <cstring>
#include <unistd.h>

using namespace mlir;
using namespace tilec;
namespace cl = llvm::cl;

namespace {

enum class Emit { MLIR, LLVM, PTX, Cubin, Bundle, C };

// Kernel families are kept whole, so a module may hold more.
constexpr unsigned KERNELS_PER_MODULE_DEFAULT = 8;

cl::OptionCategory category("tilec compile options");
cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input .mlir | ->"),
                               cl::cat(category));
cl::opt<std::string> outputFile("o", cl::desc("output file (C: the stem)"),
                                cl::value_desc("path"), cl::cat(category));
cl::opt<std::string> arch("arch", cl::desc("target: sm_90a (default) or sm_100a"),
                          cl::init("sm_90a"), cl::cat(category));
cl::opt<Emit> emit(
    "emit", cl::desc("what to write"), cl::init(Emit::Bundle),
    cl::values(clEnumValN(Emit::MLIR, "mlir", "tile IR after layout assignment"),
               clEnumValN(Emit::LLVM, "llvm", "optimized LLVM IR"),
               clEnumValN(Emit::PTX, "ptx", "PTX assembly"),
               clEnumValN(Emit::Cubin, "cubin", "machine code (ptxas)"),
               clEnumValN(Emit::Bundle, "bundle",
                          "a .tlc bundle: cubin, PTX and launch metadata"),
               clEnumValN(Emit::C, "c",
                          "a C header and source embedding the bundle")),
    cl::cat(category));
cl::opt<unsigned> optLevel("O", cl::desc("optimization level 0-3 (default 3)"),
                           cl::Prefix, cl::init(3), cl::cat(category));
cl::opt<unsigned> kernelsPerModule(
    "kernels-per-module",
    cl::desc("a bundle's kernels go into machine-code modules of at most "
             "this many, compiled in parallel (0: one module)"),
    cl::init(KERNELS_PER_MODULE_DEFAULT), cl::Hidden, cl::cat(category));
enum class Assemble { Default, All, Primary };
cl::opt<Assemble> assemble(
    "assemble",
    cl::desc("which kernels ptxas assembles ahead of time (default: primary "
             "for bundles, all for --emit=c)"),
    cl::init(Assemble::Default),
    cl::values(clEnumValN(Assemble::All, "all", "every kernel"),
               clEnumValN(Assemble::Primary, "primary",
                          "the kernels the program defines; the tile-shape, "
                          "split-K and stream-K members and the plain twins "
                          "are carried as PTX, which the runtime compiles "
                          "on such a kernel's first launch (the driver "
                          "caches it on disk)")),
    cl::cat(category));
enum class Report { None, BankConflicts };
cl::opt<Report> report(
    "report", cl::desc("print a report after the tile passes"),
    cl::init(Report::None),
    cl::values(clEnumValN(Report::BankConflicts, "bank-conflicts",
                          "wavefronts of each shared-memory access against "
                          "the ideal")),
    cl::cat(category));
cl::opt<bool> remarks(
    "remarks",
    cl::desc("report how each kernel was compiled (path, stages, shared "
             "memory, threads, registers, spills) and every remark of the "
             "passes (why a loop or dot missed the fast path)"),
    cl::cat(category));
cl::opt<bool> debugOps(
    "debug",
    cl::desc("compile tile.print and tile.assert in (otherwise only those "
             "marked `always` are)"),
    cl::cat(category));
cl::opt<bool> profile(
    "profile",
    cl::desc("instrument every kernel for the intra-kernel profiler (one "
             "thread a warp group records the kernel's loops, barrier "
             "waits, MMAs, epilogue and tile.profile_begin/end scopes; see "
             "docs/PROFILER.md)"),
    cl::cat(category));
cl::opt<bool> timing(
    "timing",
    cl::desc("print the time of each step to stderr: parsing, every pass, "
             "and per code module its lowering to the LLVM dialect, LLVM + "
             "PTX and ptxas"),
    cl::cat(category));
cl::list<std::string> printAfter(
    "print-ir-after",
    cl::desc("print the IR after these passes (pass arguments, or 'all'), "
             "to stderr"),
    cl::CommaSeparated, cl::cat(category));

int fail(const llvm::Twine &msg) {
  llvm::WithColor::error(llvm::errs(), "tilec") << msg << "\n";
  return 1;
}

void printUsage() {
  llvm::outs()
      << "tilec " TILEC_VERSION " - a tile-kernel compiler for NVIDIA GPUs\n\n"
      << "USAGE:\n"
      << "  tilec compile FILE|- [-o OUT] [--arch=sm_90a|sm_100a]\n"
      << "                [--emit=mlir|llvm|ptx|cubin|bundle|c] [-O0..3]\n"
      << "                [--print-ir-after=PASS,...|all] "
         "[--report=bank-conflicts]\n"
      << "                [--remarks] [--debug] [--profile]\n"
      << "  tilec layout show|apply|compose|invert-compose|conflicts ...\n"
      << "  tilec --help | --version\n"
      << "  tilec compile --help   (every option)\n\n"
      << "Passes for --print-ir-after, in pipeline order:\n ";
  unsigned column = 1;
  std::vector<std::string> names = pipelinePassNames();
  for (auto [i, name] : llvm::enumerate(names)) {
    if (column + name.size() + 2 > 78) {
      llvm::outs() << "\n ";
      column = 1;
    }
    llvm::outs() << " " << name << (i + 1 < names.size() ? "," : "\n");
    column += name.size() + 2;
  }
}

bool writeFile(llvm::StringRef path, llvm::StringRef data) {
  std::string err;
  auto out = openOutputFile(path, &err);
  if (!out) {
    fail("cannot write '" + path + "': " + err);
    return false;
  }
  out->os() << data;
  out->os().flush();
  if (std::error_code ec = out->os().error()) {
    // A full disk: said here, not by LLVM's fatal "IO failure" at exit.
    out->os().clear_error();
    fail("cannot write '" + path + "': " + ec.message());
    return false;
  }
  out->keep();
  return true;
}

/// Writes `data` to -o, or `dflt` if given, or stdout.
bool writeOutput(llvm::StringRef data, llvm::StringRef dflt) {
  std::string path = !outputFile.empty() ? outputFile.getValue()
                     : !dflt.empty()     ? dflt.str()
                                         : "-";
  return writeFile(path, data);
}

/// `text` with each `tensor<...>` (brackets balanced) spelled
/// `!tile.tile<...>`.
std::string spellTiles(llvm::StringRef text) {
  std::string out;
  size_t i = 0;
  while (true) {
    size_t at = text.find("tensor<", i);
    // Not the tail of a longer word (`!tile.tensor<`, `xtensor<`).
    while (at != llvm::StringRef::npos && at > 0 &&
           (llvm::isAlnum(text[at - 1]) || text[at - 1] == '.' ||
            text[at - 1] == '_'))
      at = text.find("tensor<", at + 1);
    if (at == llvm::StringRef::npos)
      break;
    out += text.slice(i, at).str() + "!tile.tile<";
    i = at + strlen("tensor<");
  }
  return out + text.drop_front(i).str();
}

/// One remark per kernel (with --remarks; by default only the kernels the
/// user wrote), and a warning for each that spills.
void summarize(SourceMgrDiagnosticHandler &diagnostics,
               const std::vector<KernelPath> &paths,
               const std::vector<KernelInfo> &kernels,
               const std::map<std::string, PtxasStats> &ptxas) {
  // By name, once: a lookup per kernel would be quadratic in their number.
  llvm::StringMap<const KernelInfo *> byName;
  for (const KernelInfo &k : kernels)
    byName[k.name] = &k;
  for (const KernelPath &p : paths) {
    auto st = ptxas.find(p.name);
    std::string figures;
    llvm::raw_string_ostream os(figures);
    const KernelInfo *info = byName.lookup(p.name);
    if (info)
      os << ", " << info->threads << " threads, " << info->sharedMemory
         << " bytes of shared memory";
    if (info && info->lazy)
      os << ", PTX until its first launch (--assemble=all assembles it now)";
    if (st != ptxas.end()) {
      os << ", " << st->second.registers << " registers";
      int64_t spills = st->second.spillStores + st->second.spillLoads;
      os << (spills ? ", spills" : ", no spills");
      if (spills && !p.isTwin)
        emitWarning(p.loc)
            << "kernel '" << p.name << "' spills registers to local memory ("
            << st->second.spillStores << " bytes of spill stores, "
            << st->second.spillLoads << " bytes of spill loads, "
            << st->second.registers << " registers a thread): use smaller "
            << "tiles or more warps (tile.num_warps), or fewer stages";
    }
    if (!remarks && p.generated)
      continue;
    // With --remarks, each load and dot of a kernel's main loop: what it
    // became (not repeated for shape variants and twins).
    if (remarks && !p.generated)
      for (auto &[loc, text] : p.mainLoop)
        diagnostics.emitDiagnostic(loc, text, DiagnosticSeverity::Remark,
                                   /*displaySourceLine=*/false);
    std::string hint = !remarks && p.missedFastPath
                           ? " (--remarks says why dots miss wgmma)"
                           : "";
    // One line each: the kernel's source line is no news.
    diagnostics.emitDiagnostic(p.loc,
                               "kernel '" + p.name + "': " + p.description +
                                   figures + hint,
                               DiagnosticSeverity::Remark,
                               /*displaySourceLine=*/false);
  }
}

int compile() {
  if (inputFile.empty())
    return fail("no input file (use - for stdin); see tilec --help");
  if (!TargetInfo::parseArch(arch))
    return fail("unsupported --arch '" + arch + "'; expected " +
                TargetInfo::supportedArchs());
  if (optLevel > 3)
    return fail("unsupported -O" + llvm::Twine(optLevel) +
                "; expected -O0 to -O3");
  // --timing: a tree of the steps' times, printed to stderr when compile()
  // returns (the per-module code generation is listed before it).
  DefaultTimingManager timingManager;
  timingManager.setEnabled(timing);
  timingManager.setDisplayMode(DefaultTimingManager::DisplayMode::Tree);
  TimingScope rootTiming = timingManager.getRootScope();
  CompileOptions options;
  options.timing = timing ? &rootTiming : nullptr;
  options.optLevel = optLevel;
  options.printAfter.assign(printAfter.begin(), printAfter.end());
  std::vector<std::string> passes = pipelinePassNames();
  for (const std::string &name : options.printAfter)
    if (name != "all" && !llvm::is_contained(passes, name))
      return fail("unknown pass '" + name + "' in --print-ir-after; the "
                  "pipeline's are: all, " + llvm::join(passes, ", "));

  // Reads are bounded: a program is a regular file (or stdin) of at most
  // 64 MiB; a device or a FIFO could be read forever.
  constexpr uint64_t kMaxInput = 64ull << 20;
  if (inputFile != "-") {
    llvm::sys::fs::file_status status;
    if (std::error_code ec = llvm::sys::fs::status(inputFile, status))
      return fail("cannot open '" + inputFile + "': " + ec.message());
    if (status.type() != llvm::sys::fs::file_type::regular_file)
      return fail("'" + inputFile + "' is not a regular file");
    if (status.getSize() > kMaxInput)
      return fail("'" + inputFile + "' is larger than 64 MiB");
  }
  std::unique_ptr<llvm::MemoryBuffer> file;
  if (inputFile == "-") {
    // Standard input, read up to the bound (not to its end: /dev/zero
    // has none).
    std::string text;
    char chunk[1 << 16];
    while (text.size() <= kMaxInput) {
      ssize_t n = ::read(0, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return fail(std::string("cannot read standard input: ") +
                    std::strerror(errno));
      if (n == 0)
        break;
      text.append(chunk, n);
    }
    if (text.size() > kMaxInput)
      return fail("the input is larger than 64 MiB");
    file = llvm::MemoryBuffer::getMemBufferCopy(text, "<stdin>");
  } else {
    std::string errorMessage;
    file = openInputFile(inputFile, &errorMessage);
    if (!file)
      return fail("cannot open '" + inputFile + "': " + errorMessage);
    if (file->getBufferSize() > kMaxInput)
      return fail("the input is larger than 64 MiB");
  }

  DialectRegistry registry;
  registry.insert<tile::TileDialect, tgpu::TGPUDialect, func::FuncDialect, arith::ArithDialect,
                  math::MathDialect, scf::SCFDialect, cf::ControlFlowDialect,
                  LLVM::LLVMDialect, NVVM::NVVMDialect>();
  registerTranslations(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // A diagnostic points at the user's source; the IR of the op (in generic
  // form, mid-pipeline) is noise to a kernel author.
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  // Without --remarks, the passes' remarks are held back; the per-kernel
  // summary below says where there is something to read. Tiles are
  // tensors in the IR; a program that spells them !tile.tile<...> reads
  // them so in diagnostics too.
  bool showRemarks = remarks;
  bool tileSpelling = sourceMgr.getMemoryBuffer(1)->getBuffer().contains(
      "!tile.tile<");
  context.getDiagEngine().registerHandler([&](Diagnostic &d) {
    if (d.getSeverity() == DiagnosticSeverity::Remark && !showRemarks)
      return success();
    if (!tileSpelling)
      return failure();
    diagnostics.emitDiagnostic(d.getLocation(), spellTiles(d.str()),
                               d.getSeverity());
    for (Diagnostic &note : d.getNotes())
      diagnostics.emitDiagnostic(note.getLocation(), spellTiles(note.str()),
                                 note.getSeverity());
    return success();
  });

  TimingScope parseTiming = rootTiming.nest("parse");
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  parseTiming.stop();
  if (!module)
    return 1;
  // The target travels in the IR: passes read `tile.target`.
  auto declared =
      (*module)->getAttrOfType<tile::TargetAttr>(tile::kTargetAttr);
  if (!declared) {
    (*module)->setAttr(tile::kTargetAttr,
                       tile::TargetAttr::get(&context,
                                             *TargetInfo::parseArch(arch)));
  } else if (arch.getNumOccurrences() &&
             tile::stringifyTarget(declared.getValue()) != arch) {
    emitError(module->getLoc())
        << "the module declares tile.target = " << declared
        << " but --arch=" << arch << " was given";
    return 1;
  }
  if (debugOps)
    (*module)->setAttr(tile::kDebugAttr, UnitAttr::get(&context));
  if (profile)
    for (auto func : module->getOps<func::FuncOp>())
      func->setAttr(tile::kProfileAttr, UnitAttr::get(&context));
  std::string target =
      tile::stringifyTarget(tile::getTarget(*module)).str();
  if (failed(runTilePasses(*module, options)))
    return 1;
  std::vector<KernelPath> paths = describeKernelPaths(*module);
  std::vector<KernelInfo> kernels = collectKernelInfo(*module, &sourceMgr);
  if (report == Report::BankConflicts) {
    // To stdout unless the compiled output goes there.
    bool toStdout = !outputFile.empty() && outputFile != "-";
    reportBankConflicts(*module, toStdout ? llvm::outs() : llvm::errs());
  }

  std::string stem = inputFile == "-" ? "kernel"
                                      : llvm::sys::path::stem(inputFile).str();
  if (emit == Emit::MLIR) {
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
    return writeOutput(text, "") ? 0 : 1;
  }
  if (failed(runLoweringPasses(*module, options)))
    return 1;
  readSharedMemory(kernels, *module);
  // A bundle's code modules are cut here and each taken to the LLVM
  // dialect on its own thread (the step is a quarter of a GEMM's compile
  // time); LLVM IR and PTX, and --print-ir-after, take the whole module.
  bool lowerPerModule = emit != Emit::LLVM && emit != Emit::PTX &&
                        options.printAfter.empty();
  if (!lowerPerModule && failed(runLLVMPasses(*module, options)))
    return 1;
  if (emit == Emit::LLVM || emit == Emit::PTX) {
    std::string llvmIR;
    TimingScope codeTiming = rootTiming.nest("LLVM and PTX");
    FailureOr<std::string> ptx = emitPTX(
        *module, target, optLevel, emit == Emit::LLVM ? &llvmIR : nullptr);
    codeTiming.stop();
    if (failed(ptx))
      return 1;
    return writeOutput(emit == Emit::LLVM ? llvmIR : *ptx, "") ? 0 : 1;
  }
  // A cubin is one file of one module, every kernel assembled (one module
  // asked of assignModules leaves none lazy).
  Assemble which = assemble;
  if (which == Assemble::Default)
    which = emit == Emit::Bundle ? Assemble::Primary : Assemble::All;
  if (which == Assemble::Primary)
    markLazyMembers(kernels);
  unsigned count =
      assignModules(kernels, emit == Emit::Cubin ? 0 : kernelsPerModule.getValue());
  std::string errors;
  TimingScope codeTiming = rootTiming.nest(
      lowerPerModule
          ? "code modules: LLVM dialect, LLVM + PTX, ptxas (in parallel)"
          : "code modules: LLVM + PTX and ptxas (in parallel)");
  std::function<LogicalResult(ModuleOp)> lower;
  if (lowerPerModule)
    lower = [&](ModuleOp part) {
      CompileOptions quiet = options; // timed per module, below
      quiet.timing = nullptr;
      return runLLVMPasses(part, quiet);
    };
  FailureOr<std::vector<CodeModule>> code = compileModules(
      *module, kernels, count, target, optLevel, errors, lower);
  codeTiming.stop();
  if (failed(code))
    return errors.empty() ? 1 : fail(errors);
  if (timing)
    for (auto [i, m] : llvm::enumerate(*code)) {
      llvm::errs() << llvm::format(
          "tilec: code module %u of %u: LLVM dialect %.4f s, LLVM + PTX %.4f s, ",
          unsigned(i), count, m.lowerSeconds, m.llvmSeconds);
      if (m.assembled)
        llvm::errs() << llvm::format("ptxas %.4f s\n", m.ptxasSeconds);
      else
        llvm::errs() << "PTX only (assembled on first use)\n";
    }
  std::string ptxasInfo;
  for (const CodeModule &m : *code)
    ptxasInfo += m.ptxasInfo;
  showRemarks = true;
  summarize(diagnostics, paths, kernels, parsePtxasInfo(ptxasInfo));
  if (emit == Emit::Cubin)
    return writeOutput(code->front().cubin, stem + ".cubin") ? 0 : 1;
  std::string bundle = writeBundle(writeMetadata(target, kernels), *code);
  if (emit == Emit::Bundle)
    return writeOutput(bundle, stem + ".tlc") ? 0 : 1;
  // C: -o names the stem (a trailing .c or .h is dropped).
  std::string outStem = outputFile.empty() ? stem : outputFile.getValue();
  llvm::StringRef os(outStem);
  if (os.ends_with(".c") || os.ends_with(".h"))
    outStem = os.drop_back(2).str();
  // The stem's file name is the header's #include "NAME.h" in the source.
  llvm::StringRef name = llvm::sys::path::filename(outStem);
  if (os.ends_with("/") || llvm::sys::fs::is_directory(outStem) ||
      name.empty() || name == "." || name == "..")
    return fail("--emit=c writes OUT.h and OUT.c: -o '" + outputFile +
                "' names a directory, not OUT");
  if (llvm::any_of(name, [](char ch) {
        return ch == '"' || ch == '\\' || !llvm::isPrint(ch);
      }))
    return fail("--emit=c: the file name '" + name.str() +
                "' cannot be #included (a quote, a backslash or a control "
                "character in it)");
  std::string header, source;
  writeCSource(llvm::sys::path::filename(outStem), bundle, kernels, header,
               source);
  return writeFile(outStem + ".h", header) && writeFile(outStem + ".c", source)
             ? 0
             : 1;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // An LLVM fatal error (the back end, an output stream) is said as
  // tilec's error and exits 1, never as "LLVM ERROR".
  llvm::install_fatal_error_handler([](void *, const char *reason, bool) {
    std::string line = std::string("tilec: error: ") + reason + "\n";
    (void)!::write(2, line.data(), line.size());
    std::_Exit(1);
  });
  if (argc < 2 || llvm::StringRef(argv[1]) == "--help" ||
      llvm::StringRef(argv[1]) == "-h" || llvm::StringRef(argv[1]) == "help") {
    printUsage();
    return argc < 2 ? 1 : 0;
  }
  if (llvm::StringRef(argv[1]) == "--version") {
    llvm::outs() << "tilec " TILEC_VERSION " (LLVM/MLIR " LLVM_VERSION_STRING
                    ")\n";
    return 0;
  }
  if (llvm::StringRef(argv[1]) == "layout")
    return runLayoutCommand(std::vector<std::string>(argv + 2, argv + argc));
  if (llvm::StringRef(argv[1]) != "compile")
    return fail("unknown command '" + llvm::Twine(argv[1]) +
                "'; see tilec --help");
  // Parse the options after the subcommand.
  std::vector<const char *> args{"tilec compile"};
  for (int i = 2; i < argc; ++i)
    args.push_back(argv[i]);
  cl::HideUnrelatedOptions(category);
  if (!cl::ParseCommandLineOptions(int(args.size()), args.data(),
                                   "tilec compile: compile a tile program\n",
                                   &llvm::errs()))
    return 1;
  return compile();
}
