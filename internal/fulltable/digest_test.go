package fulltable

import (
	"crypto/sha256"
	"fmt"
	"testing"

	"github.com/tessera-solver/tessera/internal/puzzle"
)

// TestPayloadDigests pins the payload of small tables byte for byte: the
// digests are those of the builder before internal/bfs took over, so a
// change of builder that moves one entry fails here.
func TestPayloadDigests(t *testing.T) {
	for _, c := range []struct {
		sp     puzzle.Spec
		digest string
	}{
		{sliding(2, 3), "0d11bb29b8e91cee055dd151d16e71a0cc0215c4ecf17cd06c29890c4e5db19d"},
		{sliding(3, 3), "b206f079b8404ea61c7b0feb680cacc268db1f232011514feabeb7ba17ff8207"},
		{sliding(2, 4), "daed07823f73ef1fb585dcf30342ddc394baa8158bc7aefbaa9f67a0c5b7d72e"},
		{sliding(5, 2), "d959c3c41224a41d6dbafa3a80a99b1fe457cce01fc2f81371ce66764bba82cc"},
		{loopover(2, 2), "d2aeaeb48f8617f2bf97232df18fd097d99059abebc39b847cbdb37c3714a332"},
		{loopover(2, 3), "e83e443109b917a053b12e1e46bb0533196052f5a0c56a93e8e164721d6d6dfa"},
		{loopover(3, 3), "7bf82fdeab7e157f258e72a85bfbdf5b1a9573d3f4cf0a3384dcfc9f91db4974"},
		{loopover(2, 4), "c685a937fa8d2c892eac39c6d1e234c58678003ab601434e4a911d8cc94f83a8"},
		{loopover(5, 2), "34b469e52225c693993cf9115b711f62231417c65693c70343cb903575f5fe10"},
	} {
		if got := fmt.Sprintf("%x", sha256.Sum256(build(t, c.sp).Payload())); got != c.digest {
			t.Errorf("%s: payload digest %s, want %s", c.sp, got, c.digest)
		}
	}
}
