"""Test PKI made with the openssl CLI: a CA, a serving certificate for 127.0.0.1/localhost and
client certificates (CN = user name, O = group), all EC P-256 (fast to generate).

Files (in `d`): ca.pem ca.key server.crt server.key; client certificates as NAME.crt / NAME.key.
Existing files are reused, so a second start in the same directory costs nothing.
"""
import os
import subprocess


def _run(args, cwd):
    subprocess.run(['openssl'] + args, cwd=cwd, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE)


def _key(cwd, name):
    _run(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', name], cwd)
    os.chmod(os.path.join(cwd, name), 0o600)


def make_ca(d, cn='jaxjob-test-ca'):
    if os.path.exists(os.path.join(d, 'ca.pem')) and os.path.exists(os.path.join(d, 'ca.key')):
        return
    _key(d, 'ca.key')
    _run(['req', '-x509', '-new', '-key', 'ca.key', '-out', 'ca.pem', '-days', '3650', '-subj', f'/CN={cn}',
          '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'], d)


def _sign(d, name, subj, ext):
    _key(d, f'{name}.key')
    _run(['req', '-new', '-key', f'{name}.key', '-out', f'{name}.csr', '-subj', subj], d)
    extfile = os.path.join(d, f'{name}.ext')
    with open(extfile, 'w') as f:
        f.write(ext)
    _run(['x509', '-req', '-in', f'{name}.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial',
          '-out', f'{name}.crt', '-days', '825', '-extfile', extfile], d)
    os.unlink(os.path.join(d, f'{name}.csr'))
    os.unlink(extfile)


def make_server_cert(d):
    if os.path.exists(os.path.join(d, 'server.crt')):
        return
    _sign(d, 'server', '/CN=kube-apiserver',
          'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n'
          'keyUsage=critical,digitalSignature,keyEncipherment\nbasicConstraints=CA:FALSE\n'
          'authorityKeyIdentifier=keyid\n')


def make_client_cert(d, user, group=None):
    if os.path.exists(os.path.join(d, f'{user}.crt')):
        return
    subj = f'/CN={user}' + (f'/O={group}' if group else '')
    _sign(d, user, subj, 'extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature\n'
          'basicConstraints=CA:FALSE\nauthorityKeyIdentifier=keyid\n')


def make_all(d, clients=(('admin', 'system:masters'),)):
    os.makedirs(d, exist_ok=True)
    make_ca(d)
    make_server_cert(d)
    for user, group in clients:
        make_client_cert(d, user, group)
