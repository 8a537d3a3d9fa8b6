"""The support bundle's redaction (plugins/module_utils/_redact.py): serials, keys, passwords and tokens found in any
text are replaced by the same marker in every text; names only when asked; figures that merely look like fields of
those names (max_tokens, tokens_per_second) are left alone."""
from ansible_collections.macops.cluster.plugins.module_utils._redact import Redactor

PROFILER = '{"SPHardwareDataType": [{"serial_number": "H2WH91D5Q6", "platform_UUID": "6F1A-22B0-4C3D"}]}'
FACTS = '{"mac": {"serial_number": "H2WH91D5Q6"}, "max_tokens": 512, "tokens_per_second": 35.81}'


def test_a_serial_gets_one_marker_in_every_text_it_appears_in():
    redactor = Redactor().learn(PROFILER)
    assert redactor.apply(PROFILER) == ('{"SPHardwareDataType": [{"serial_number": "[redacted serial 1]", '
                                        '"platform_UUID": "[redacted serial 2]"}]}')
    assert redactor.apply(FACTS) == ('{"mac": {"serial_number": "[redacted serial 1]"}, "max_tokens": 512, '
                                     '"tokens_per_second": 35.81}')
    assert redactor.summary() == {"serial": 2}
    text = "Serial Number (system): C02XYZ12AB\nHardware UUID: 1D2C-AA\n"
    assert Redactor().learn(text).apply(text) == ("Serial Number (system): [redacted serial 1]\n"
                                                  "Hardware UUID: [redacted serial 2]\n")


def test_passwords_tokens_and_keys_are_hidden_wherever_they_are_written():
    text = ('{"serve_api_key": "sk-abcdef123"}\nhf_token: hf_XYZ987654\nowner_password=hunter22\n'
            "<key>OwnerPassword</key>\n<string>s3cret-pass</string>\nAuthorization: Bearer eyJhbGciOi.x\n"
            "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsab admin@studio-1\n"
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n")
    hidden = Redactor().learn(text).apply(text)
    for secret in ("sk-abcdef123", "hf_XYZ987654", "hunter22", "s3cret-pass", "eyJhbGciOi.x",
                   "AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsab", "b3BlbnNzaC1rZXktdjEAAAAA"):
        assert secret not in hidden, secret
    assert "[redacted private key]" in hidden and "ssh-ed25519 [redacted key 1] admin@studio-1" in hidden
    # A field that is empty, a boolean or already masked stays as it is.
    quiet = '{"api_key": null, "token": true, "password": "VALUE_SPECIFIED_IN_NO_LOG_PARAMETER"}'
    assert Redactor().learn(quiet).apply(quiet) == quiet


def test_names_are_replaced_as_whole_words_only_when_asked():
    text = "studio-1 at 192.168.1.11 as admin; studio-10 stays"
    assert Redactor().learn(text).apply(text) == text
    named = Redactor(["studio-1", "192.168.1.11", "admin"]).learn(text).apply(text)
    assert "studio-1 " not in named and "192.168.1.11" not in named and "admin" not in named
    assert "studio-10 stays" in named
