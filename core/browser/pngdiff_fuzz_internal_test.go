package browser

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"testing"
)

// FuzzDecodePNG: screenshots reach compare_web_screenshots as base64 from
// the caller (or from imported Evidence), so decodePNG parses untrusted
// bytes. It must never panic, must refuse what it does not decode with a
// *pngError, and where the standard library's decoder also reads the
// bytes, both must give the same pixels.
func FuzzDecodePNG(f *testing.F) {
	for _, img := range []image.Image{solid(3, 2, color.NRGBA{10, 200, 30, 255}, false), solid(5, 4, color.NRGBA{1, 2, 3, 4}, true), gradient(17, 9)} {
		var b bytes.Buffer
		if err := png.Encode(&b, img); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
		f.Add(b.Bytes()[:b.Len()/2])
	}
	for _, ch := range []int{3, 4} {
		f.Add(filteredPNG(7, 10, ch))
	}
	f.Add([]byte("\x89PNG\r\n\x1a\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := decodePNG(b, 1<<20)
		if err != nil {
			if _, ok := err.(*pngError); !ok {
				t.Fatalf("error %T %v is not a *pngError", err, err)
			}
			return
		}
		if len(got.pix) != got.w*got.h*4 {
			t.Fatalf("%d×%d image with %d bytes of pixels", got.w, got.h, len(got.pix))
		}
		want, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			return // the standard decoder checks CRCs and chunk order; decodePNG does not
		}
		r := want.Bounds()
		if r.Dx() != got.w || r.Dy() != got.h {
			t.Fatalf("size %d×%d, the standard decoder %d×%d", got.w, got.h, r.Dx(), r.Dy())
		}
		for y := 0; y < got.h; y++ {
			for x := 0; x < got.w; x++ {
				c := color.NRGBAModel.Convert(want.At(r.Min.X+x, r.Min.Y+y)).(color.NRGBA)
				o := (y*got.w + x) * 4
				if g := got.pix[o : o+4]; g[0] != c.R || g[1] != c.G || g[2] != c.B || g[3] != c.A {
					t.Fatalf("pixel (%d,%d) %v, the standard decoder %v", x, y, g, c)
				}
			}
		}
	})
}

// filteredPNG is a w×h 8-bit RGB (ch 3) or RGBA (ch 4) PNG whose rows use
// the five filter types in turn over arbitrary bytes (any bytes are valid
// filtered data: the filters define the pixels).
func filteredPNG(w, h, ch int) []byte {
	var raw bytes.Buffer
	for y := 0; y < h; y++ {
		raw.WriteByte(byte(y % 5))
		for i := 0; i < w*ch; i++ {
			raw.WriteByte(byte(y*131 + i*71 + i*i*3))
		}
	}
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(raw.Bytes())
	zw.Close()
	out := []byte("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		out = binary.BigEndian.AppendUint32(out, uint32(len(data)))
		start := len(out)
		out = append(append(out, typ...), data...)
		out = binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out[start:]))
	}
	ct := byte(2)
	if ch == 4 {
		ct = 6
	}
	ihdr := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, uint32(w)), uint32(h))
	chunk("IHDR", append(ihdr, 8, ct, 0, 0, 0))
	chunk("IDAT", z.Bytes())
	chunk("IEND", nil)
	return out
}

func solid(w, h int, c color.NRGBA, alpha bool) image.Image {
	if !alpha {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		for i := 0; i < w*h; i++ {
			img.Pix[i*4], img.Pix[i*4+1], img.Pix[i*4+2], img.Pix[i*4+3] = c.R, c.G, c.B, 255
		}
		return img
	}
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < w*h; i++ {
		img.Pix[i*4], img.Pix[i*4+1], img.Pix[i*4+2], img.Pix[i*4+3] = c.R, c.G, c.B, c.A
	}
	return img
}

// gradient varies every channel, so each filter type the encoder picks
// (sub, up, average, Paeth) changes the bytes.
func gradient(w, h int) image.Image {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.SetNRGBA(x, y, color.NRGBA{uint8(x * 13), uint8(y * 29), uint8(x*y + 7), uint8(255 - x*y)})
		}
	}
	return img
}
