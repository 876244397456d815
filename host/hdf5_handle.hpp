// An HDF5 identifier that closes itself (the result file's writer, and the merge's reader of shards).
#pragma once

#include <hdf5.h>

#include <utility>

namespace quatstep {

/// An HDF5 identifier closed by its own close function.
class Handle {
 public:
  Handle() = default;
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  Handle(Handle&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = H5I_INVALID_HID; }
  Handle& operator=(Handle&& o) noexcept {
    std::swap(id_, o.id_);
    std::swap(close_, o.close_);
    return *this;
  }
  ~Handle() { reset(); }
  herr_t reset() {
    const herr_t r = id_ >= 0 ? close_(id_) : 0;
    id_ = H5I_INVALID_HID;
    return r;
  }
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }

 private:
  hid_t id_ = H5I_INVALID_HID;
  herr_t (*close_)(hid_t) = nullptr;
};

}  // namespace quatstep
