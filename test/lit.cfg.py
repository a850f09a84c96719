# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "tilec"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "unit", "gpu", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tilec_obj_root, "test")

config.substitutions.append(("%tilec_src", config.tilec_src_root))
config.substitutions.append(("%tilec_obj", config.tilec_obj_root))
config.substitutions.append(("%cc", config.c_compiler))
config.substitutions.append(("%ptxas", os.path.join(config.cuda_dir, "bin", "ptxas")))

llvm_config.with_system_environment(["HOME", "TMPDIR"])
llvm_config.use_default_substitutions()
llvm_config.add_tool_substitutions(["tilec", "tilec-opt"], [config.tilec_tools_dir])
config.environment["PATH"] = os.pathsep.join(
    [config.tilec_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])

# nvdisasm (the SASS of any arch, sm_100a's included, without a GPU):
# $TILEC_NVDISASM, the pinned PyPI package scripts/test.sh installs into
# build/pyext, PATH, or the CUDA toolkit. Tests that read SASS run their
# checks under `%if nvdisasm`.
import glob
import shutil

_nvdisasm = [os.environ.get("TILEC_NVDISASM", "")]
_nvdisasm += sorted(glob.glob(os.path.join(config.tilec_obj_root, "pyext", "nvidia", "*", "bin", "nvdisasm")))
_nvdisasm += [shutil.which("nvdisasm") or "", os.path.join(config.cuda_dir, "bin", "nvdisasm")]
_nvdisasm = next((p for p in _nvdisasm if p and os.access(p, os.X_OK)), None)
if _nvdisasm:
    config.available_features.add("nvdisasm")
    config.substitutions.append(("%nvdisasm", _nvdisasm))
else:
    lit_config.note("nvdisasm not found: SASS checks are skipped")
