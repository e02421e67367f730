package aggregate

// maxPathBytes is the system's limit on the length of a path, its NUL
// included (PATH_MAX): a walk does not enter a directory whose .gitignore
// could not be named.
const maxPathBytes = 4096
