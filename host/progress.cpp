// Progress bar: "[#########...........]  45%  1.2e+06 body-steps/s  ETA 12 s".
#include "progress.hpp"

#include <string>

namespace quatstep {

ProgressBar::ProgressBar(std::FILE* out, index_t total_steps, index_t bodies, const char* unit)
    : out_(out), total_(total_steps), bodies_(bodies), unit_(unit) {}

void ProgressBar::update(index_t done, double elapsed) {
  if (last_draw_ >= 0 && elapsed - last_draw_ < 0.1) return;
  draw(done, elapsed);
}

void ProgressBar::finish(double elapsed) {
  draw(total_, elapsed);
  std::fputc('\n', out_);
  std::fflush(out_);
}

void ProgressBar::draw(index_t done, double elapsed) {
  constexpr int width = 30;
  const double fraction = total_ > 0 ? double(done) / double(total_) : 1.0;
  const int filled = static_cast<int>(fraction * width);
  const std::string bar = std::string(filled, '#') + std::string(width - filled, '.');
  const double rate = elapsed > 0 ? double(done) * double(bodies_) / elapsed : 0.0;
  const double eta = done > 0 ? elapsed * double(total_ - done) / double(done) : 0.0;
  std::fprintf(out_, "\r[%s] %3d%%  %.3g %s  ETA %.0f s   ", bar.c_str(), static_cast<int>(fraction * 100), rate,
               unit_, eta);
  std::fflush(out_);
  last_draw_ = elapsed;
}

}  // namespace quatstep
