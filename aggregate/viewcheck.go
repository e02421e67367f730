package aggregate

import "errors"

// CheckView returns an error when f asks for a view that fails whatever
// the file holds: the masked view with nothing to mask by (no ASTMask,
// ASTSignatures or ASTDefinitions). A caller that sets one view for many
// files (ctx aggregate --view) checks it once instead of reporting the same
// failure for every file.
func (f FileItem) CheckView() error {
	if f.ViewMode == ViewMasked && len(f.ASTMask) == 0 && !f.ASTSignatures && !f.ASTDefinitions {
		return errors.New("the masked view needs ast_mask (or ast_signatures or ast_definitions)")
	}
	return nil
}
