package templates

// ReleasedBlocks lists, for each managed Markdown block by name, the
// sha256 (hex) of every body a nowhook has written between its markers,
// with LF line endings. A block whose body is one of these, or the current
// template's, is nowhook's: setup upgrades it and remove takes it out.
// Any other body was edited by hand and is the user's.
//
// The list does not follow the version in the marker: a version bump that
// leaves a body alone needs no new entry. When a body changes, add the new
// text's sum and keep every old one; TestReleasedBlocks
// (cmd/nowhook/internal/agent) fails until then.
var ReleasedBlocks = map[string][]string{
	"kbs-now": {
		"5259728c54e9586f65c0a1d1df8756fb239a2d886ec75c58f7e30722dfdd6ee3", // v1
		"ae3a1c66eaae2415aa91c624106e0ef3f97ccc00dbc57c839f7f840317fb261f", // v2: how to checkpoint by hand
		"3d1d2d66e414131a4cb4e705ac29dba597bc1955c30c21e5e6e0437c267b6d19", // v6 with samemind among the sources: samemind handoff
	},
	"compact-instructions": {
		"34a14988c4f2fed75aae4a1a44810498da7e0b36f51615ddb1c7ebc7a8458200", // v1, v2
	},
}
