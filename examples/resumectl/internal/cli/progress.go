package cli

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/resumekit/resumekit/resume"
)

// progressDelay is how long a resolve runs before its live progress line
// shows: a quick one prints nothing but its report.
const progressDelay = time.Second

// progressEvery bounds how often the line is redrawn.
const progressEvery = 100 * time.Millisecond

// progress is the live line a slow resolve shows on a terminal's stderr:
// locations listed, _metadata read and verified, sources checked, storage
// calls; cleared when the resolve ends.
type progress struct {
	mu                  sync.Mutex
	out                 *output
	start, last         time.Time
	shown               bool
	every               time.Duration
	timer               *time.Timer
	stopped             bool
	listed, read, verif int
	checked, sources    int
	calls               int
	now                 func() time.Time
	// pending names the storage call waiting longest, when one has waited
	// a while (tracer.longest): a hanging store shows what hangs and where.
	pending func() string
}

// startProgress starts the line: shown after delay (at once when 0), then
// redrawn at most every `every` as events arrive.
func startProgress(out *output, sources int, delay, every time.Duration) *progress {
	p := &progress{out: out, sources: sources, every: every, now: time.Now}
	p.start = p.now()
	if delay <= 0 {
		p.shown = true
		p.draw()
		return p
	}
	p.timer = time.AfterFunc(delay, p.tick)
	return p
}

// tick shows the line and redraws it every second while nothing else
// does (a long observation window, a slow call): the elapsed time moves.
func (p *progress) tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	p.shown = true
	p.draw()
	p.timer = time.AfterFunc(time.Second, p.tick)
}

// event counts e and redraws the line.
func (p *progress) event(e resume.Event) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e.Kind {
	case resume.EventListed:
		p.listed++
	case resume.EventMetadataRead:
		p.read++
	case resume.EventVerified:
		p.verif++
	case resume.EventSourceChecked:
		p.checked++
	case resume.EventStorageCall:
		p.calls++
	}
	if p.shown && !p.stopped && p.now().Sub(p.last) >= p.every {
		p.draw()
	}
}

// line is the progress text.
func (p *progress) line() string {
	parts := []string{
		fmt.Sprintf("%d location(s) listed", p.listed),
		fmt.Sprintf("%d _metadata read", p.read),
		fmt.Sprintf("%d verified", p.verif),
		fmt.Sprintf("%d of %d sources checked", p.checked, p.sources),
		fmt.Sprintf("%d storage calls", p.calls),
	}
	if p.pending != nil {
		if w := p.pending(); w != "" {
			parts = append(parts, "waiting for "+w+" (--timeout ends it)")
		}
	}
	return fmt.Sprintf("resolving (%s): %s", p.now().Sub(p.start).Round(100*time.Millisecond), strings.Join(parts, ", "))
}

func (p *progress) draw() {
	p.last = p.now()
	p.out.status(p.line())
}

// stop clears the line; nothing is drawn after it.
func (p *progress) stop() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopped = true
	if p.timer != nil {
		p.timer.Stop()
	}
	p.out.status("")
}
