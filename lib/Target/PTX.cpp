//===- PTX.cpp - LLVM dialect -> LLVM IR -> PTX -> cubin ------------------===//

#include "tilec/Dialect/Tile/TargetInfo.h"
#include "tilec/Target/Target.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Linker/Linker.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

#include <atomic>
#include <climits>
#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

extern "C" {
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

using namespace mlir;
using namespace tilec;

static constexpr const char *kTriple = "nvptx64-nvidia-cuda";
static constexpr const char *kPtxFeatures = "+ptx86";

/// libdevice: $TILEC_LIBDEVICE, else the CUDA toolkit's.
static std::string libdevicePath() {
  if (const char *env = getenv("TILEC_LIBDEVICE"))
    return env;
  return std::string(TILEC_CUDA_DIR) + "/nvvm/libdevice/libdevice.10.bc";
}

/// Links the libdevice functions `module` calls (`__nv_sinf`, ...) into it,
/// internal so that they inline and the rest goes, and answers libdevice's
/// `__nvvm_reflect` queries here (flush-to-zero off, the target's arch),
/// at every optimization level.
static LogicalResult linkLibdevice(ModuleOp op, llvm::Module &module,
                                   StringRef arch) {
  SmallVector<std::string> wanted;
  for (llvm::Function &f : module)
    if (f.isDeclaration() && f.getName().starts_with("__nv_"))
      wanted.push_back(f.getName().str());
  if (wanted.empty())
    return success();
  std::string path = libdevicePath();
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    // Said at the math op the first call came from.
    Location loc = op.getLoc();
    op.walk([&](LLVM::CallOp call) {
      if (call.getCallee() && call.getCallee()->starts_with("__nv_")) {
        loc = call.getLoc();
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    return mlir::emitError(loc)
           << "'" << wanted.front()
           << "' (math the hardware has no instruction for) needs libdevice, "
              "not found at "
           << path << " (set TILEC_LIBDEVICE or TILEC_CUDA_DIR)";
  }
  llvm::Expected<std::unique_ptr<llvm::Module>> lib =
      llvm::parseBitcodeFile((*buffer)->getMemBufferRef(), module.getContext());
  if (!lib)
    return op.emitError() << "cannot read libdevice at " << path << ": "
                          << llvm::toString(lib.takeError());
  // What the module defines already keeps its linkage; what libdevice
  // brought in becomes internal.
  llvm::StringSet<> own;
  for (llvm::GlobalValue &g : module.global_values())
    if (!g.isDeclaration())
      own.insert(g.getName());
  (*lib)->setTargetTriple(module.getTargetTriple());
  (*lib)->setDataLayout(module.getDataLayout());
  if (llvm::Linker::linkModules(module, std::move(*lib),
                                llvm::Linker::LinkOnlyNeeded))
    return op.emitError() << "linking libdevice (" << path << ") failed";
  for (llvm::GlobalValue &g : module.global_values())
    if (!g.isDeclaration() && !own.contains(g.getName()))
      g.setLinkage(llvm::GlobalValue::InternalLinkage);
  if (llvm::Function *reflect = module.getFunction("__nvvm_reflect")) {
    std::optional<tile::Target> target = TargetInfo::parseArch(arch);
    int archNumber = target ? TargetInfo::get(*target).computeCapability : 0;
    for (llvm::User *u : llvm::make_early_inc_range(reflect->users())) {
      auto *call = dyn_cast<llvm::CallInst>(u);
      if (!call)
        continue;
      // The query is a constant string: __CUDA_FTZ, __CUDA_ARCH, ...
      StringRef query;
      llvm::Value *arg = call->getArgOperand(0)->stripPointerCasts();
      if (auto *gv = dyn_cast<llvm::GlobalVariable>(arg))
        if (auto *data = dyn_cast_or_null<llvm::ConstantDataSequential>(
                gv->getInitializer()))
          query = data->getAsCString();
      int value = query == "__CUDA_ARCH" ? archNumber * 10 : 0;
      call->replaceAllUsesWith(
          llvm::ConstantInt::get(call->getType(), value));
      call->eraseFromParent();
    }
    if (reflect->use_empty())
      reflect->eraseFromParent();
  }
  return success();
}

void tilec::registerTranslations(DialectRegistry &registry) {
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}

/// Undoes what loop-invariant code motion costs in registers across a
/// hot loop, on values it hoisted into a loop's preheader:
/// - variants of one shared-memory address (a swizzled base xor'd, or'd
///   or offset by a constant, the base's GEP: a stage's or a store
///   buffer's chunks) move back next to their uses in the loop, one or
///   two instructions where used instead of a register across the loop;
/// - any cheap integer or address arithmetic used only in the loop's own
///   blocks outside its inner loops (an epilogue's row addresses and
///   bounds after the main loop, inside a loop around both) moves back
///   there, out of the inner loops' live ranges.
static void sinkHoistedValues(llvm::Function &f) {
  llvm::DominatorTree dt(f);
  llvm::LoopInfo li(dt);
  auto computedOperands = [](llvm::Instruction &inst) {
    int computed = 0;
    for (llvm::Value *v : inst.operands())
      if (!llvm::isa<llvm::Constant>(v))
        ++computed;
    return computed;
  };
  // One operand computed (the base), the rest constants; a GEP may take
  // a computed base and index.
  auto addressVariant = [&](llvm::Instruction &inst) {
    if (auto *gep = llvm::dyn_cast<llvm::GetElementPtrInst>(&inst))
      return gep->getAddressSpace() == 3 && computedOperands(inst) <= 2;
    return llvm::is_contained({llvm::Instruction::Xor, llvm::Instruction::Or,
                               llvm::Instruction::Add},
                              inst.getOpcode()) &&
           computedOperands(inst) == 1;
  };
  auto cheap = [](llvm::Instruction &inst) {
    if (auto *bin = llvm::dyn_cast<llvm::BinaryOperator>(&inst))
      return !bin->isIntDivRem() && !bin->getType()->isFPOrFPVectorTy();
    return llvm::isa<llvm::GetElementPtrInst, llvm::ICmpInst, llvm::CastInst>(
        inst);
  };
  for (llvm::Loop *loop : li.getLoopsInPreorder()) {
    llvm::BasicBlock *pre = loop->getLoopPreheader();
    if (!pre)
      continue;
    llvm::SmallVector<llvm::Instruction *> insts;
    for (llvm::Instruction &inst : *pre)
      insts.push_back(&inst);
    for (llvm::Instruction *inst : llvm::reverse(insts)) {
      if (inst->use_empty() || !cheap(*inst))
        continue;
      bool variant = addressVariant(*inst);
      if (!llvm::all_of(inst->users(), [&](llvm::User *u) {
            auto *ui = llvm::dyn_cast<llvm::Instruction>(u);
            return ui && !llvm::isa<llvm::PHINode>(ui) &&
                   loop->contains(ui->getParent()) &&
                   (variant || li.getLoopFor(ui->getParent()) == loop);
          }))
        continue;
      // One copy a block, before its first user there (a copy a use
      // would multiply along shared chains of sunk values).
      llvm::SetVector<llvm::BasicBlock *> blocks;
      for (llvm::User *u : inst->users())
        blocks.insert(llvm::cast<llvm::Instruction>(u)->getParent());
      for (llvm::BasicBlock *block : blocks) {
        llvm::Instruction *first =
            &*llvm::find_if(*block, [&](llvm::Instruction &i) {
              return llvm::is_contained(i.operand_values(), inst);
            });
        llvm::Instruction *copy = inst->clone();
        copy->insertBefore(first->getIterator());
        inst->replaceUsesWithIf(copy, [&](llvm::Use &u) {
          return llvm::cast<llvm::Instruction>(u.getUser())->getParent() ==
                 block;
        });
      }
      inst->eraseFromParent();
    }
  }
}

FailureOr<std::string> tilec::emitPTX(ModuleOp module, StringRef arch,
                                      int optLevel, std::string *llvmIR) {
  static bool initialized = [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    // Shared-memory pointers in 32 bits (the shared window is 32-bit
    // addressed): 64-bit ones cost a register pair each in every loop that
    // walks mbarriers and slots, which made the attention kernels spill.
    auto &opts = llvm::cl::getRegisteredOptions();
    auto it = opts.find("nvptx-short-ptr");
    if (it != opts.end())
      static_cast<llvm::cl::opt<bool> *>(it->second)->setValue(true);
    return true;
  }();
  (void)initialized;

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "tilec");
  if (!llvmModule)
    return module.emitError() << "translation to LLVM IR failed";

  llvm::Triple triple(kTriple);
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return module.emitError() << "NVPTX target unavailable: " << error;
  llvm::TargetOptions options;
  // Multiplies and adds may fuse into FMAs (nvcc's --fmad=true, Triton's
  // enable_fp_fusion): one rounding instead of two, and the softmax's
  // scale-and-subtract in one instruction.
  options.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  auto level = optLevel <= 0   ? llvm::CodeGenOptLevel::None
               : optLevel == 1 ? llvm::CodeGenOptLevel::Less
               : optLevel == 2 ? llvm::CodeGenOptLevel::Default
                               : llvm::CodeGenOptLevel::Aggressive;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, arch, kPtxFeatures, options, std::nullopt, std::nullopt, level));
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(tm->createDataLayout());
  if (failed(linkLibdevice(module, *llvmModule, arch)))
    return failure();

  if (optLevel > 0) {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PassBuilder pb(tm.get());
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::OptimizationLevel ol = optLevel == 1   ? llvm::OptimizationLevel::O1
                                 : optLevel == 2 ? llvm::OptimizationLevel::O2
                                                 : llvm::OptimizationLevel::O3;
    llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(ol);
    mpm.run(*llvmModule, mam);
    // After the optimizer: it hoists without regard to registers, and
    // ptxas then spills what lives across the main loop (attention
    // backward: 120 bytes at D = 64 and 128, none after).
    for (llvm::Function &f : *llvmModule)
      if (!f.isDeclaration())
        sinkHoistedValues(f);
  }
  if (llvmIR) {
    llvmIR->clear();
    llvm::raw_string_ostream os(*llvmIR);
    llvmModule->print(os, nullptr);
  }

  llvm::SmallString<0> ptx;
  {
    llvm::raw_svector_ostream os(ptx);
    llvm::legacy::PassManager pm;
    if (tm->addPassesToEmitFile(pm, os, nullptr,
                                llvm::CodeGenFileType::AssemblyFile))
      return module.emitError() << "the NVPTX backend cannot emit PTX";
    pm.run(*llvmModule);
  }
  return std::string(ptx.str());
}

/// ptxas: $TILEC_PTXAS, then PATH, then the CUDA toolkit.
static std::optional<std::string> findPtxas() {
  if (const char *env = getenv("TILEC_PTXAS"))
    return std::string(env);
  if (auto p = llvm::sys::findProgramByName("ptxas"))
    return *p;
  std::string dflt = std::string(TILEC_CUDA_DIR) + "/bin/ptxas";
  if (llvm::sys::fs::can_execute(dflt))
    return dflt;
  return std::nullopt;
}

namespace {

/// The ptxas runs in progress (modules assemble in parallel), for a
/// SIGINT or SIGTERM to stop them and remove their temporary files (2-4 MB
/// each were left behind): a slot each, the child's pid and the files'
/// paths in static storage, read by the handler (kill, waitpid and unlink
/// are async-signal-safe).
struct Run {
  std::atomic<bool> taken{false};
  std::atomic<pid_t> pid{0};
  char paths[3][PATH_MAX] = {};
};
Run runs[64];

void stopRuns() {
  for (Run &r : runs) {
    if (!r.taken.load())
      continue;
    if (pid_t pid = r.pid.load(); pid > 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
    for (const char *path : r.paths)
      if (*path)
        ::unlink(path);
  }
  ::_exit(130);
}

/// A slot in `runs` for one ptxas run, freed when it ends.
class RunSlot {
public:
  RunSlot() {
    static bool installed = (llvm::sys::SetInterruptFunction(stopRuns), true);
    (void)installed;
    for (Run &r : runs) {
      bool expected = false;
      if (r.taken.compare_exchange_strong(expected, true)) {
        run = &r;
        return;
      }
    }
  }
  /// The run's temporary file `i` (of 3).
  void track(int i, StringRef path) {
    if (run && path.size() < PATH_MAX) {
      memcpy(run->paths[i], path.data(), path.size());
      run->paths[i][path.size()] = 0;
    }
  }
  void setPid(pid_t pid) {
    if (run)
      run->pid.store(pid);
  }
  ~RunSlot() {
    if (!run)
      return;
    run->pid.store(0);
    for (char *path : run->paths)
      *path = 0;
    run->taken.store(false);
  }

private:
  Run *run = nullptr;
};

} // namespace

FailureOr<std::string> tilec::assemblePTX(StringRef ptx, StringRef arch,
                                          int optLevel, std::string &errors,
                                          std::string *info) {
  std::optional<std::string> ptxas = findPtxas();
  if (!ptxas) {
    errors = "ptxas not found (set TILEC_PTXAS, put it on PATH, or install "
             "the CUDA toolkit under " TILEC_CUDA_DIR ")";
    return failure();
  }
  llvm::SmallString<128> in, out, log;
  int fd;
  RunSlot slot;
  auto create = [&](int i, StringRef suffix, llvm::SmallString<128> &path,
                    int *fd) {
    std::error_code ec =
        fd ? llvm::sys::fs::createTemporaryFile("tilec", suffix, *fd, path)
           : llvm::sys::fs::createTemporaryFile("tilec", suffix, path);
    if (!ec)
      slot.track(i, path);
    return bool(ec);
  };
  if (create(0, "ptx", in, &fd) || create(1, "cubin", out, nullptr) ||
      create(2, "log", log, nullptr)) {
    errors = "cannot create temporary files for ptxas";
    return failure();
  }
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << ptx;
  }
  std::string archFlag = "-arch=" + arch.str();
  std::string optFlag = "-O" + std::to_string(std::clamp(optLevel, 0, 3));
  SmallVector<StringRef> args{*ptxas, archFlag, optFlag, in, "-o", out};
  if (info)
    args.push_back("-v");
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log),
                                          StringRef(log)};
  std::string execError;
  int rc;
  {
    bool failedToRun = false;
    llvm::sys::ProcessInfo child = llvm::sys::ExecuteNoWait(
        *ptxas, args, std::nullopt, redirects, 0, &execError, &failedToRun);
    slot.setPid(child.Pid);
    rc = failedToRun ? -1
                     : llvm::sys::Wait(child, /*SecondsToWait=*/300, &execError)
                           .ReturnCode;
    slot.setPid(0);
  }
  FailureOr<std::string> result = failure();
  if (rc != 0) {
    auto buf = llvm::MemoryBuffer::getFile(log);
    errors = "ptxas failed";
    if (!execError.empty())
      errors += ": " + execError;
    if (buf) {
      StringRef text = (*buf)->getBuffer();
      errors += ":\n" + text.str();
      // A warp-specialized kernel's partitions run under the register
      // budgets tile-warp-specialize gave them (setmaxnreg).
      if (text.contains("Insufficient registers"))
        errors += "(a warp-specialized kernel's warps run under fixed "
                  "register budgets, set by tile.num_warps and "
                  "tile.blocks_per_sm; this instruction needs more than its "
                  "partition has: ask fewer blocks an SM, more warps or "
                  "smaller tiles)";
    }
  } else if (auto buf = llvm::MemoryBuffer::getFile(out, /*IsText=*/false)) {
    result = (*buf)->getBuffer().str();
    if (info)
      if (auto text = llvm::MemoryBuffer::getFile(log))
        *info = (*text)->getBuffer().str();
  } else {
    errors = "cannot read the cubin ptxas wrote";
  }
  llvm::sys::fs::remove(in);
  llvm::sys::fs::remove(out);
  llvm::sys::fs::remove(log);
  return result;
}
