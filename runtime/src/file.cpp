// Bounded reads of regular files: bundles and the autotuning cache.
#include "internal.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tilec_rt {

FileRead read_regular_file(const std::string& path, size_t max_bytes, std::string& out,
                           int& err) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused
  // below); a regular file reads as ever.
  struct Fd {
    int fd;
    ~Fd() {
      if (fd >= 0) ::close(fd);
    }
  } f{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
  if (f.fd < 0) {
    err = errno;
    return FileRead::OpenFailed;
  }
  // Only a regular file, of a bounded size: a device such as /dev/zero
  // would be read until memory ran out.
  struct stat st;
  if (::fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode)) return FileRead::NotRegular;
  if (static_cast<uint64_t>(st.st_size) > max_bytes) return FileRead::TooLarge;
  out.clear();
  char chunk[65536];
  for (;;) {
    const ssize_t got = ::read(f.fd, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      err = errno;
      return FileRead::ReadFailed;
    }
    if (got == 0) return FileRead::Ok;
    out.append(chunk, static_cast<size_t>(got));
    if (out.size() > max_bytes) return FileRead::TooLarge;  // it grew since fstat
  }
}

}  // namespace tilec_rt
