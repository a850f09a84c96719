// Bounded reads of regular files (bundles, the autotuning cache) and whole
// files written atomically (the autotuning cache, profile traces).
#include "internal.h"

#include <atomic>
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

bool write_file_atomically(const std::string& path, const std::string& text) {
  // A name no other thread or process writes, renamed over `path` in one
  // step: a reader sees the old file or the new one, never part of one.
  static std::atomic<int> counter{0};
  const std::string tmp = cat(path, ".tmp.", static_cast<long>(::getpid()), ".", ++counter);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  bool ok = fd >= 0;
  for (size_t done = 0; ok && done < text.size();) {
    const ssize_t w = ::write(fd, text.data() + done, text.size() - done);
    ok = w > 0;
    if (ok) done += static_cast<size_t>(w);
  }
  if (fd >= 0) ok = ::close(fd) == 0 && ok;
  if (ok && std::rename(tmp.c_str(), path.c_str()) == 0) return true;
  const int err = errno;
  ::unlink(tmp.c_str());
  errno = err;
  return false;
}

}  // namespace tilec_rt
