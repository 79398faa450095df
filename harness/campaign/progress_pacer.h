// When `devplan fuzz` writes a plain progress line (its standard error is not a terminal):
// every `interval` seconds of the campaign, the first after one interval, however unevenly the
// progress calls come.
//
//   ProgressPacer pacer(2.0);
//   if (pacer.due(p.seconds)) write_line(p);
#pragma once

namespace devplan::harness {

class ProgressPacer {
 public:
  explicit ProgressPacer(double interval) : interval_(interval), next_(interval) {}

  // True when a line is due at `seconds` into the campaign; the next is then due one interval
  // after `seconds`.
  bool due(double seconds) {
    if (seconds < next_) return false;
    next_ = seconds + interval_;
    return true;
  }

 private:
  double interval_;
  double next_;
};

}  // namespace devplan::harness
