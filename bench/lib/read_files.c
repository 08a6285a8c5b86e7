// The floor of a boot check's file work: list a folder and read every file in it, the least a
// tool that verifies each migration's checksum must do (no parsing, no hashing, one thread).
// Usage: read_files DIR — prints the number of files and bytes read.
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char** argv) {
  DIR* folder = argc == 2 ? opendir(argv[1]) : NULL;
  if (folder == NULL) {
    fprintf(stderr, "usage: read_files DIR (a readable folder)\n");
    return 2;
  }
  char buffer[65536];
  long files = 0, bytes = 0;
  for (struct dirent* entry; (entry = readdir(folder)) != NULL;) {
    if (entry->d_name[0] == '.') continue;
    const int fd = openat(dirfd(folder), entry->d_name, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    for (ssize_t got; (got = read(fd, buffer, sizeof buffer)) > 0;) bytes += got;
    close(fd);
    ++files;
  }
  closedir(folder);
  printf("%ld files, %ld bytes\n", files, bytes);
  return 0;
}
