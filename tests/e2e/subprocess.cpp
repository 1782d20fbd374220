// SPDX-License-Identifier: LGPL-2.1-or-later
#include "subprocess.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>

Subprocess::Subprocess(const std::vector<std::string> &argv) {
  int out_pipe[2], err_pipe[2];
  if (argv.empty() || pipe(out_pipe) != 0) throw std::runtime_error("pipe failed");
  if (pipe(err_pipe) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    throw std::runtime_error("pipe failed");
  }
  std::vector<char *> args;
  for (const auto &a : argv) args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  pid_ = fork();
  if (pid_ == 0) {
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    close(out_pipe[0]);
    close(out_pipe[1]);
    close(err_pipe[0]);
    close(err_pipe[1]);
    signal(SIGINT, SIG_DFL);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  out_fd_ = out_pipe[0];
  err_fd_ = err_pipe[0];
  if (pid_ < 0) {
    close(out_fd_);
    close(err_fd_);
    throw std::runtime_error("fork failed");
  }
}

Subprocess::~Subprocess() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (out_fd_ >= 0) close(out_fd_);
  if (err_fd_ >= 0) close(err_fd_);
}

bool Subprocess::read_some(int timeout_ms) {
  pollfd fds[2];
  nfds_t count = 0;
  for (int fd : {out_fd_, err_fd_})
    if (fd >= 0) fds[count++] = pollfd{fd, POLLIN, 0};
  if (count == 0) return false;
  const int ready = poll(fds, count, timeout_ms);
  if (ready < 0 && errno != EINTR) return false;
  for (nfds_t i = 0; i < count && ready > 0; ++i) {
    if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    char chunk[4096];
    const ssize_t n = read(fds[i].fd, chunk, sizeof(chunk));
    int &fd = fds[i].fd == out_fd_ ? out_fd_ : err_fd_;
    std::string &text = fds[i].fd == out_fd_ ? out_ : err_;
    if (n > 0) {
      text.append(chunk, std::size_t(n));
    } else {
      close(fd);
      fd = -1;
    }
  }
  return out_fd_ >= 0 || err_fd_ >= 0;
}

bool Subprocess::wait_for_stderr(const std::string &text, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (err_.find(text) == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || !read_some(int(left.count()))) return false;
  }
  return true;
}

void Subprocess::send_signal(int signal_number) {
  if (pid_ > 0) kill(pid_, signal_number);
}

int Subprocess::wait() {
  while (read_some(-1)) {
  }
  int status = 0;
  if (pid_ <= 0 || waitpid(pid_, &status, 0) != pid_) return -1;
  pid_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int run_process(const std::vector<std::string> &argv, std::string *out, std::string *err) {
  Subprocess child(argv);
  const int status = child.wait();
  if (out) *out = child.out();
  if (err) *err = child.err();
  return status;
}
