# Sourced by the GPU-machine scripts: the staged runtime, bundles and Python
# package (see scripts/stage-gpu.sh).
export TILEC_RUNTIME_LIB=$PWD/.device/libtilec_runtime.so
export TILEC_BUNDLE_DIR=$PWD/.device/examples
export TILEC_FAKE_CUDA_LIB=$PWD/.device/libtilec_fake_cuda.so
export PYTHONPATH=$PWD/python:$PWD/.device/pyext${PYTHONPATH:+:$PYTHONPATH}
export PYTHONUNBUFFERED=1
export TILEC_CONSUMER=$PWD/.device/consumer
export TILEC_TUTORIAL_DIR=$PWD/.device/tutorial
export TILEC_KERNELS_DIR=$PWD/.device/examples
