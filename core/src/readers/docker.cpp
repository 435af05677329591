// SPDX-License-Identifier: MIT
// `docker run [docker options] IMAGE [arguments]` (also podman): the image's own command line is read by its
// runtime's reader. TGI's image (ghcr.io/huggingface/text-generation-inference) runs text-generation-launcher,
// vLLM's (vllm/vllm-openai) `vllm serve`'s arguments, llama.cpp's server images (ghcr.io/ggml-org/llama.cpp:server*)
// llama-server; any other image is read when its arguments start with a command the table knows
// (`lmsysorg/sglang python3 -m sglang.launch_server ...`). `-e NAME=value` is the container's environment.
#include <algorithm>
#include <array>
#include <cctype>
#include <string>

#include "readers/readers.hpp"
#include "text.hpp"

namespace llm_memory::detail {

namespace {

// docker run's options that take a value (docker run --help, 27.x); any other option is a flag (-d, --rm, -it).
constexpr std::array<std::string_view, 30> valued = {
    "-e",       "--env",      "--env-file",   "-p",        "--publish",  "-v",        "--volume",  "--mount",
    "--name",   "--shm-size", "--gpus",       "--network", "--net",      "--ipc",     "--runtime", "--device",
    "-w",       "--workdir",  "--entrypoint", "-u",        "--user",     "-l",        "--label",   "--restart",
    "--ulimit", "--cpus",     "-m",           "--memory",  "--platform", "--hostname"};

bool takes_value(std::string_view option) {
  for (const auto v : valued)
    if (v == option) return true;
  return false;
}

// TGI's image tag -> its tgi_version group: 3.3 and later, 3.1 - 3.2, 3.0, 2.4, 1.4.1 - 2.3, 1.0 - 1.4.0.
void tgi_release(std::string_view image, launch_read& out) {
  const auto colon = image.rfind(':');
  const std::string tag = colon == std::string_view::npos ? "latest" : std::string(image.substr(colon + 1));
  const auto parts = split(tag, '.');
  int major = -1, minor = -1, patch = 0;
  const auto number = [](std::string_view s) {
    int n = 0;
    std::size_t digits = 0;
    for (; digits < s.size() && digits < 4 && std::isdigit(static_cast<unsigned char>(s[digits])) != 0; ++digits)
      n = n * 10 + (s[digits] - '0');
    return digits == 0 ? -1 : n;
  };
  if (parts.size() >= 2) major = number(parts[0]), minor = number(parts[1]);
  if (parts.size() >= 3) patch = std::max(0, number(parts[2]));
  if (major < 0 || minor < 0) {
    out.notes.push_back("image tag " + quoted(tag) +
                        " names no TGI release: tgi_version stays 3.3 (give --tgi_version)");
    return;
  }
  const int v = major * 10000 + minor * 100 + patch;
  const char* group = v >= 30300   ? "3.3"
                      : v >= 30100 ? "3.1"
                      : v >= 30000 ? "3.0"
                      : v >= 20400 ? "2.4"
                      : v >= 10401 ? "1.4.1"
                                   : "1.0";
  set_setting(out, "image " + tag, "tgi_version", group);
}

}  // namespace

void read_docker(const command_line& cmd, launch_read& out) {
  command_line inner;
  std::size_t i = 0;
  for (; i < cmd.args.size(); ++i) {
    const std::string_view word = cmd.args[i];
    if (word.empty() || word[0] != '-') break;
    const auto eq = word.find('=');
    const std::string_view option = word.substr(0, eq);
    std::string value = eq == std::string_view::npos ? "" : std::string(word.substr(eq + 1));
    if (eq == std::string_view::npos && takes_value(option) && i + 1 < cmd.args.size()) value = cmd.args[++i];
    const auto assign = value.find('=');
    if ((option == "-e" || option == "--env") && assign != std::string::npos)
      inner.env.emplace_back(value.substr(0, assign), value.substr(assign + 1));
    else
      ignore(out, option, "a docker option: no memory setting depends on it");
  }
  if (i >= cmd.args.size()) return out.errors.push_back({"command", "docker run names no image"});
  const std::string image = lower(cmd.args[i]);
  const auto tag_at = image.rfind(':');
  const auto slash = image.rfind('/');
  const bool tagged = tag_at != std::string::npos && (slash == std::string::npos || tag_at > slash);
  const std::string repo = image.substr(0, tagged ? tag_at : image.size());
  inner.args.assign(cmd.args.begin() + static_cast<std::ptrdiff_t>(i) + 1, cmd.args.end());
  if (!inner.args.empty() && !inner.args[0].starts_with("-")) {
    // The image's arguments are a command of their own (`lmsysorg/sglang python3 -m sglang.launch_server ...`).
    command_line named = to_command(inner.args);
    named.env.insert(named.env.begin(), inner.env.begin(), inner.env.end());
    if (read_command(std::move(named), out)) {
      out.command = "docker run " + repo + " (" + out.command + ")";
      return;
    }
  }
  if (repo.ends_with("text-generation-inference")) {
    out.command = "docker run " + repo + " (text-generation-launcher)";
    tgi_release(image, out);
    return read_tgi(inner, out);
  }
  if (repo.ends_with("vllm/vllm-openai")) {
    out.command = "docker run " + repo + " (vllm serve)";
    return read_vllm_serve(inner, out);
  }
  if (repo.ends_with("llama.cpp") && image.find(":server") != std::string::npos) {
    out.command = "docker run " + repo + " (llama-server)";
    return read_llama_server(inner, out);
  }
  if (repo.ends_with("ollama/ollama")) {
    out.command = "docker run " + repo + " (ollama serve)";
    return read_ollama(inner, out);
  }
  out.errors.push_back({"command", "docker image " + quoted(cmd.args[i]) +
                                       " is not one llm-memory reads (text-generation-inference, vllm/vllm-openai, "
                                       "llama.cpp:server, ollama/ollama, or an image followed by a launch command)"});
}

}  // namespace llm_memory::detail
