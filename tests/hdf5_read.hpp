// Test helpers: read back what quatstep wrote (HDF5 C API), and a scratch directory per test.
#pragma once

#include <hdf5.h>
#include <stdlib.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace quatstep::testing {

struct Dataset {
  std::vector<unsigned long long> dims;
  std::vector<double> values;  ///< row-major, converted to double by HDF5
};

inline bool has_dataset(const std::string& file, const std::string& name) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return false;
  const bool ok = H5Lexists(f, name.c_str(), H5P_DEFAULT) > 0;
  H5Fclose(f);
  return ok;
}

inline Dataset read_dataset(const std::string& file, const std::string& name) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) throw std::runtime_error("cannot open " + file);
  const hid_t d = H5Dopen2(f, name.c_str(), H5P_DEFAULT);
  if (d < 0) {
    H5Fclose(f);
    throw std::runtime_error(file + ": no dataset " + name);
  }
  const hid_t s = H5Dget_space(d);
  Dataset out;
  out.dims.resize(H5Sget_simple_extent_ndims(s));
  std::vector<hsize_t> dims(out.dims.size());
  H5Sget_simple_extent_dims(s, dims.data(), nullptr);
  std::size_t n = 1;
  for (std::size_t k = 0; k < dims.size(); ++k) out.dims[k] = dims[k], n *= dims[k];
  out.values.resize(n);
  const herr_t r = H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.values.data());
  H5Sclose(s);
  H5Dclose(d);
  H5Fclose(f);
  if (r < 0) throw std::runtime_error(file + ": cannot read " + name);
  return out;
}

/// A root attribute (or an attribute of `object`) as a string: strings as stored, numbers printed.
inline std::string read_string_attribute(const std::string& file, const std::string& name, const std::string& object = "/") {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) throw std::runtime_error("cannot open " + file);
  const hid_t a = H5Aopen_by_name(f, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT);
  std::string value;
  if (a >= 0) {
    const hid_t t = H5Aget_type(a);
    if (H5Tget_class(t) == H5T_STRING && H5Tis_variable_str(t) > 0) {
      char* s = nullptr;
      if (H5Aread(a, t, &s) >= 0 && s) value = s;
      H5free_memory(s);
    } else if (H5Tget_class(t) == H5T_FLOAT) {
      double x = 0;
      H5Aread(a, H5T_NATIVE_DOUBLE, &x);
      value = std::to_string(x);
    } else if (H5Tget_class(t) == H5T_INTEGER) {
      long long x = 0;
      H5Aread(a, H5T_NATIVE_LLONG, &x);
      value = std::to_string(x);
    }
    H5Tclose(t);
    H5Aclose(a);
  }
  H5Fclose(f);
  if (a < 0) throw std::runtime_error(file + ": no attribute " + name + " on " + object);
  return value;
}

/// The names of every dataset of a file.
inline std::vector<std::string> datasets(const std::string& file) {
  std::vector<std::string> names;
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  H5Ovisit(
      f, H5_INDEX_NAME, H5_ITER_INC,
      [](hid_t, const char* name, const H5O_info_t* info, void* out) -> herr_t {
        if (info->type == H5O_TYPE_DATASET) static_cast<std::vector<std::string>*>(out)->push_back(name);
        return 0;
      },
      &names);
  H5Fclose(f);
  return names;
}

/// A dataset's bytes as stored (its own type), for byte-for-byte comparisons.
inline std::vector<unsigned char> raw_bytes(const std::string& file, const std::string& name) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t d = f < 0 ? H5I_INVALID_HID : H5Dopen2(f, name.c_str(), H5P_DEFAULT);
  std::vector<unsigned char> bytes;
  herr_t r = -1;
  if (d >= 0) {
    const hid_t t = H5Dget_type(d), s = H5Dget_space(d);
    bytes.resize(std::size_t(H5Sget_simple_extent_npoints(s)) * H5Tget_size(t));
    r = bytes.empty() ? 0 : H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data());
    H5Sclose(s);
    H5Tclose(t);
    H5Dclose(d);
  }
  if (f >= 0) H5Fclose(f);
  if (r < 0) throw std::runtime_error(file + ": cannot read " + name);
  return bytes;
}

/// The names of every attribute of an object (the root by default).
inline std::vector<std::string> attribute_names(const std::string& file, const std::string& object = "/") {
  std::vector<std::string> names;
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) throw std::runtime_error("cannot open " + file);
  H5Aiterate_by_name(
      f, object.c_str(), H5_INDEX_NAME, H5_ITER_INC, nullptr,
      [](hid_t, const char* name, const H5A_info_t*, void* out) -> herr_t {
        static_cast<std::vector<std::string>*>(out)->push_back(name);
        return 0;
      },
      &names, H5P_DEFAULT);
  H5Fclose(f);
  return names;
}

/// A fresh directory under the system temporary directory, removed with its contents at the end.
class ScratchDirectory {
 public:
  ScratchDirectory() {
    std::string pattern = (std::filesystem::temp_directory_path() / "quatstep-test-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~ScratchDirectory() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

/// A file's whole text ("" when it cannot be opened): a command's captured output.
inline std::string read_text_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A command's exit code and captured standard output and error.
struct CommandOutcome {
  int exit_code;
  std::string out, err;
};

/// Bitwise equality (NaN == NaN when the bits agree).
inline bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace quatstep::testing
