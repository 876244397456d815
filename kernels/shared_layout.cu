// The layout of the shared types as nvcc lays them out (shared_layout.hpp), for a g++ test to compare.
#include "kernels/shared_layout.hpp"

quatstep::cuda::SharedLayout quatstep::cuda::shared_layout_in_nvcc_objects() { return shared_layout_here(); }
