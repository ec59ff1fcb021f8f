// libqrencode (Debian's libqrencode-dev): the staff console's QR code for enrolling an
// authenticator app (UNITIServer's QRCodeSVG).
#ifndef UNITI_CQRENCODE_SHIM_H
#define UNITI_CQRENCODE_SHIM_H
#include <qrencode.h>
#endif
