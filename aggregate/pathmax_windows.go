package aggregate

// maxPathBytes bounds the length of a path a walk enters: Go names long
// paths on Windows in their \\?\ form, whose limit is 32,767 characters.
const maxPathBytes = 32767
