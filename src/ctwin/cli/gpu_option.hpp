#pragma once
// --gpu: a GPU profile given as a file or as a short name under models/gpus ("h100-sxm"); the
// evaluation API resolves it (api/gpu_profile.hpp) so that Python takes the same names.

#include "ctwin/api/gpu_profile.hpp"

namespace ctwin::cli {

using api::load_gpu_option;
using api::resolve_gpu_path;

}  // namespace ctwin::cli
