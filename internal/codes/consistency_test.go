package codes

import (
	"testing"

	"github.com/rebound-hq/rebound/internal/classify"
	"github.com/rebound-hq/rebound/internal/dsn"
)

// bareResult is a bounce that carries only an entry's codes (and, when
// text is true, its reply text as the diagnostic).
func bareResult(e *Entry, text bool) dsn.Result {
	r := dsn.Result{Kind: dsn.KindBounce, Status: e.EnhancedCode, ReplyCode: e.ReplyCode}
	if text {
		r.Diagnostic = e.ReplyText
	}
	return r
}

// TestGenericAgreesWithClassify checks that every generic code entry
// (an enhanced or reply code of the registries, any server) gives the reason and report label
// that internal/classify gives a bounce carrying only that code: the code
// pages of the API and the Reports must tell the same story.
func TestGenericAgreesWithClassify(t *testing.T) {
	n := 0
	for _, e := range List(Filter{Provider: ProviderGeneric}) {
		if e.Class == "" || e.rangeHi != 0 || e.Group != "enhanced" && e.Group != "reply" {
			continue // success and intermediate replies are not bounces
		}
		n++
		v := classify.Classify(bareResult(e, false))
		if v.Reason != e.Reason || v.Label != e.Label {
			t.Errorf("%s (%s): entry says %s/%q, classify says %s/%q", e.ID, e.Code(), e.Reason, e.Label, v.Reason, v.Label)
		}
	}
	if n < 100 {
		t.Fatalf("only %d generic failure entries checked", n)
	}
}

// TestProviderAgreesWithClassify checks provider entries (and the known
// replies of any server, group "others") against classify on their own
// reply text: where classify finds a reason in the text alone (not onhold
// or undefined), the entry's label must be the label classify gives the
// whole reply (codes and text). Over all of them, text or not, at least
// providerFloor must agree: the rest are replies whose words say nothing
// that classify can read ("Please try again later" under 4.7.1), where the
// entry knows the provider's meaning.
func TestProviderAgreesWithClassify(t *testing.T) {
	const providerFloor = 0.97
	all, allAgree, checked, agree := 0, 0, 0, 0
	for _, e := range List(Filter{}) {
		if e.Group == "enhanced" || e.Group == "reply" || e.Class == "" || e.rangeHi != 0 {
			continue
		}
		all++
		v := classify.Classify(bareResult(e, true))
		if v.Label == e.Label {
			allAgree++
		}
		tr := classify.ReasonOf(classify.Evidence{Kind: dsn.KindBounce, Diagnostic: e.ReplyText})
		if tr == classify.ReasonOnHold || tr == classify.ReasonUndefined {
			if v.Label != e.Label {
				t.Logf("no text reason: %s (%s %q): entry %s/%q, classify %s/%q", e.ID, e.Code(), e.ReplyText, e.Reason, e.Label, v.Reason, v.Label)
			}
			continue
		}
		checked++
		if v.Label == e.Label {
			agree++
			continue
		}
		t.Errorf("%s (%s %q): entry says %s/%q, classify says %s/%q", e.ID, e.Code(), e.ReplyText, e.Reason, e.Label, v.Reason, v.Label)
	}
	t.Logf("provider entries with a text reason: %d, labels agree: %d; all provider entries: %d, agree: %d (%.1f%%)",
		checked, agree, all, allAgree, 100*float64(allAgree)/float64(max(all, 1)))
	if all < 100 || float64(allAgree) < providerFloor*float64(all) {
		t.Errorf("only %d of %d provider entries agree with classify (floor %.2f)", allAgree, all, providerFloor)
	}
}
