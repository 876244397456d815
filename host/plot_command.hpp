// `quatstep plot` and the plots of `quatstep verify`: python/quatstep/plot.py run by python3, found
// next to the executable in a build tree (build/quatstep → python/quatstep/plot.py), in an
// installation (bin/quatstep → share/quatstep/plot.py) or in the source tree this quatstep was built
// from, with a clear error when python3 or its modules (matplotlib, h5py, numpy) are missing.
#pragma once

#include <string>
#include <vector>

namespace quatstep {

/// The path of plot.py; std::runtime_error listing the places looked at when there is none.
std::string find_plot_script();

/// Runs `python3 plot.py args…` after checking python3 and its modules (std::runtime_error saying
/// what is missing and how to install it); returns its exit status.
int run_plot_script(const std::vector<std::string>& args);

}  // namespace quatstep
