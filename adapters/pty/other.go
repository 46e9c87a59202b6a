//go:build !linux

package pty

import (
	"context"
	"fmt"
	"time"

	"rea/ports"
)

// Options configures an Engine; see the Linux build.
type Options struct {
	TempParent string
	WaitDelay  time.Duration
}

// Engine reports process capture as unavailable off Linux.
type Engine struct{}

var _ ports.ProcessCapturer = (*Engine)(nil)

// New returns an Engine.
func New(*Options) *Engine { return &Engine{} }

// CaptureProcess fails with ports.ErrUnavailable: the observations need /proc.
func (e *Engine) CaptureProcess(context.Context, ports.CaptureRequest) (*ports.ProcessCapture, error) {
	return nil, fmt.Errorf("pty: process capture needs Linux: %w", ports.ErrUnavailable)
}
