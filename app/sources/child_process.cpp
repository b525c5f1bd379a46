#include "app/sources/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "filters/core/errors.h"

extern char** environ;

namespace rf::app::detail {

std::string find_program(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (!path) return {};
  const std::string dirs = path;
  std::size_t begin = 0;
  while (begin <= dirs.size()) {
    std::size_t end = dirs.find(':', begin);
    if (end == std::string::npos) end = dirs.size();
    const std::string dir = end > begin ? dirs.substr(begin, end - begin) : ".";
    const std::string candidate = dir + "/" + name;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
    begin = end + 1;
  }
  return {};
}

ChildProcess::ChildProcess(const std::vector<std::string>& argv, Stdin stdin_mode) {
  // O_CLOEXEC: the pipes must not leak into other children (a second ffmpeg would otherwise hold
  // this one's write end open, and its reader would never see end of file).
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
  auto close_all = [&] {
    for (int* p : {in, out, err})
      for (int k = 0; k < 2; ++k)
        if (p[k] >= 0) ::close(p[k]);
  };
  if ((stdin_mode == Stdin::Pipe && ::pipe2(in, O_CLOEXEC) != 0) || ::pipe2(out, O_CLOEXEC) != 0 ||
      ::pipe2(err, O_CLOEXEC) != 0) {
    const int e = errno;
    close_all();
    throw IoError(argv[0] + ": pipe: " + std::strerror(e));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (stdin_mode == Stdin::Pipe)
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  else
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  // The child starts with default signal handling and an empty mask, whatever the GUI set.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const int rc = ::posix_spawn(&pid_, argv[0].c_str(), &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  // The child's ends stay with the child only.
  for (int* fd : {&in[0], &out[1], &err[1]})
    if (*fd >= 0) {
      ::close(*fd);
      *fd = -1;
    }
  if (rc != 0) {
    close_all();
    pid_ = -1;
    throw IoError(argv[0] + ": cannot start: " + std::strerror(rc));
  }
  in_ = in[1];
  out_ = out[0];
  err_ = err[0];
}

void ChildProcess::close_stdin() {
  if (in_ >= 0) ::close(in_);
  in_ = -1;
}

ChildProcess::~ChildProcess() {
  kill_and_wait();
}

int ChildProcess::kill_and_wait() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    wait();
  }
  return status_;
}

int ChildProcess::wait() {
  close_stdin();
  if (out_ >= 0) ::close(out_);
  if (err_ >= 0) ::close(err_);
  out_ = err_ = -1;
  if (pid_ > 0) {
    while (::waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
  }
  return status_;
}

int run_program(const std::vector<std::string>& argv, std::string& out, std::string& err,
                double timeout_s) {
  ChildProcess child(argv);
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(timeout_s));
  pollfd fds[2] = {{child.stdout_fd(), POLLIN, 0}, {child.stderr_fd(), POLLIN, 0}};
  std::string* sinks[2] = {&out, &err};
  int open_pipes = 2;
  char buffer[4096];
  while (open_pipes > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      child.kill_and_wait();
      return -1;
    }
    const int n = ::poll(fds, 2, int(left));
    if (n < 0 && errno != EINTR) break;
    for (int k = 0; k < 2; ++k) {
      if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t got = ::read(fds[k].fd, buffer, sizeof buffer);
      if (got > 0) {
        sinks[k]->append(buffer, std::size_t(got));
      } else if (got == 0 || errno != EINTR) {
        fds[k].fd = -1;  // end of file; poll() ignores negative descriptors
        --open_pipes;
      }
    }
  }
  const int status = child.wait();
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace rf::app::detail
