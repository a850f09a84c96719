//===- Target.h - from LLVM dialect to machine code and bundles -*- C++ -*-===//

#ifndef TILEC_TARGET_TARGET_H
#define TILEC_TARGET_TARGET_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/SourceMgr.h"

#include <functional>
#include <string>
#include <vector>

namespace tilec {

/// One kernel parameter as the launch metadata describes it.
struct ParamInfo {
  bool isTensor = false;
  std::string name;
  std::string dtype;               // docs/BUNDLE.md names: bf16, f8e4m3, ...
  std::vector<int64_t> shape;      // -1: dynamic
  std::vector<int64_t> strides;    // -1: dynamic
  int64_t align = 1;
  std::vector<int64_t> tmaBox;     // empty: not copied by TMA
  int64_t tmaSwizzle = 0;
  bool tmaFallback = false;        // the kernel also reads it without TMA
};

/// Launch metadata of one kernel.
struct KernelInfo {
  std::string name;
  int threads = 128;
  int64_t sharedMemory = 0;
  int cluster[3] = {1, 1, 1};
  std::vector<std::string> grid;   // 3 expressions
  std::vector<ParamInfo> params;
  std::string plainVariant;        // kernel to run where TMA cannot be used
  std::vector<std::string> variants; // the same program at other tile shapes
  std::string cost;                // the launch's estimated time (grid expr)
  std::string workspace;           // bytes of workspace (grid expr), if any
  std::string semaphores;          // bytes of semaphores (grid expr), if any
  unsigned module = 0;             // the machine-code module it is in
  bool lazy = false;               // carried as PTX, assembled on first use
  // Profiled kernels (tile.profile_scopes): the name of each warp group's
  // partition (load, compute, or main outside warp specialization) and the
  // scope names, a record's scope id indexing them; per frame (by id) its
  // events as the `profile frame` line writes them (docs/BUNDLE.md).
  std::vector<std::string> profileGroups;
  std::vector<std::string> profileScopes;
  std::vector<std::string> profileFrames;
};

/// One machine-code module of a bundle.
struct CodeModule {
  std::string ptx;
  std::string cubin;
  std::string ptxasInfo;           // ptxas -v's report
  double lowerSeconds = 0;         // the `lower` step of compileModules, if any
  double llvmSeconds = 0;          // translation, LLVM O3, the NVPTX backend
  double ptxasSeconds = 0;
  bool assembled = true;           // false: PTX only (its kernels are lazy)
};

/// Reads the kernels of a tile-level module (after verification). Parameter
/// names come from the source text at each argument's location.
std::vector<KernelInfo> collectKernelInfo(mlir::ModuleOp module,
                                          const llvm::SourceMgr *sources);
/// Fills in the shared memory each kernel needs (tile.shared_memory, set by
/// convert-tile-to-llvm).
void readSharedMemory(std::vector<KernelInfo> &kernels, mlir::ModuleOp module);

/// The metadata text of docs/BUNDLE.md.
std::string writeMetadata(llvm::StringRef arch,
                          llvm::ArrayRef<KernelInfo> kernels);

/// Adds the translations to LLVM IR that emitPTX needs to `registry`, the
/// one the context is made with (registering into a live context is not
/// thread-safe, and compileModules translates on several threads).
void registerTranslations(mlir::DialectRegistry &registry);

/// Translates an LLVM-dialect module to LLVM IR, optimizes it at `optLevel`
/// and emits PTX for `arch`. `llvmIR`, if given, receives the optimized IR.
/// The module's context must have the translations (registerTranslations).
mlir::FailureOr<std::string> emitPTX(mlir::ModuleOp module,
                                     llvm::StringRef arch, int optLevel,
                                     std::string *llvmIR = nullptr);

/// Runs ptxas on `ptx`; on failure `errors` holds its output. `info`, if
/// given, receives ptxas -v's report (registers, spills per function).
mlir::FailureOr<std::string> assemblePTX(llvm::StringRef ptx,
                                         llvm::StringRef arch, int optLevel,
                                         std::string &errors,
                                         std::string *info = nullptr);

/// Marks the kernels the compiler derived from the program's (tile-shape,
/// split-K and stream-K members, plain twins) lazy: carried as PTX and
/// assembled by the runtime on such a kernel's first launch. The kernels
/// the program defines stay assembled ahead of time.
void markLazyMembers(llvm::MutableArrayRef<KernelInfo> kernels);

/// Puts kernel families (a kernel with its variants and its plain twin) in
/// order into modules of at most `perModule` kernels (0: one module); a
/// larger family is cut into the fewest near-equal runs that fit; a lazy
/// kernel is a module of its own (loaded, so compiled, alone). Sets each
/// KernelInfo::module and returns the number of modules. The split depends
/// on the kernels alone.
unsigned assignModules(llvm::MutableArrayRef<KernelInfo> kernels,
                       unsigned perModule);

/// Compiles `module` into `count` machine-code modules, module i holding
/// the kernels whose KernelInfo::module is i with what they call and read;
/// the modules are cut, lowered, emitted and assembled in parallel.
/// `module` is in the LLVM dialect, or `lower` takes each module there (on
/// the module's thread: the context must allow multithreading). On failure
/// either a diagnostic was emitted or `errors` says why.
mlir::FailureOr<std::vector<CodeModule>>
compileModules(mlir::ModuleOp module, llvm::ArrayRef<KernelInfo> kernels,
               unsigned count, llvm::StringRef arch, int optLevel,
               std::string &errors,
               std::function<mlir::LogicalResult(mlir::ModuleOp)> lower = {});

/// The bundle container of docs/BUNDLE.md: the metadata and, per module,
/// its cubin and PTX (either may be empty in all modules).
std::string writeBundle(llvm::StringRef metadata,
                        llvm::ArrayRef<CodeModule> modules);

/// A C header and source with the bundle embedded and one typed launch
/// function per kernel. `stem` names the files and prefixes the symbols.
void writeCSource(llvm::StringRef stem, llvm::StringRef bundle,
                  llvm::ArrayRef<KernelInfo> kernels, std::string &header,
                  std::string &source);

} // namespace tilec

#endif // TILEC_TARGET_TARGET_H
