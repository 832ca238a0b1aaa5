# flip.py FILE: changes one byte of the .comment section of an ELF64 file
# (not loaded at run time), leaving its size alone: a different plugin
# that still loads, for tests/tools/ccache.sh.
import struct, sys
path = sys.argv[1]
data = bytearray(open(path, 'rb').read())
assert data[:4] == b'\x7fELF' and data[4] == 2
shoff, = struct.unpack_from('<Q', data, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)
def sec(i):
    return struct.unpack_from('<IIQQQQ', data, shoff + i * shentsize)
stroff = sec(shstrndx)[4]
for i in range(shnum):
    name, typ, flags, addr, off, size = sec(i)
    end = data.index(b'\0', stroff + name)
    if data[stroff + name:end] == b'.comment' and size > 0:
        data[off] ^= 0x01
        open(path, 'r+b').write(data)
        print('flipped a byte of .comment at', off); sys.exit(0)
sys.exit('no .comment section')
