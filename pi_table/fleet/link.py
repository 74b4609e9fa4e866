"""The MQTT client both ends of the fleet use, a table's reporter and the dashboard: paho
(MQTT 5), the broker's login and TLS from a ``FleetConfig``, a persistent session, and the
largest packet it takes (MQTT 5's Maximum Packet Size), so a broker drops a bigger message
rather than send it: paho would read the whole of it into memory before anyone could refuse it."""

from __future__ import annotations

import ssl

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from ..config import FleetConfig
from ..config.bound import broker_destination, read_bound_password
from ..config.machine import read_password
from .schema import MAX_PAYLOAD

PREFIX = "pi-table"
SESSION_EXPIRY_S = 24 * 3600  # how long the broker keeps the session (and QoS 1 messages) of one away
KEEPALIVE_S = 30  # the broker declares a silent client gone (a table's last will) after 1.5 times this
RECONNECT_S = (1, 60)  # paho's reconnect delay: from 1 s, doubling, to at most 60 s
MAX_PACKET = MAX_PAYLOAD + 4096  # bytes: the largest message a table sends, with its topic and MQTT's headers;
# the café's Mosquitto has the same limit (pi_table/fleet/mosquitto/pi-table.conf, max_packet_size)


def topic(table_id: str, name: str) -> str:
    return f"{PREFIX}/{table_id}/{name}"


def table_client_id(table_id: str) -> str:
    """The client id a table asks for, and its persistent session's name at a broker that
    takes it. The café's Mosquitto (``use_username_as_clientid``) uses the table's user name
    instead, its table_id: as stable across reconnects, so the session holds either way."""
    return f"{PREFIX}-{table_id}"


def client(config: FleetConfig, client_id: str) -> mqtt.Client:
    """A client for ``config``'s broker, not yet connected; OSError when its password file
    cannot be read, Refusal when it holds no password (``config.machine.read_password``) or one
    given for another broker or setting (``config.bound``: the password goes nowhere then)."""
    made = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=MQTTProtocolVersion.MQTTv5)
    if config.username is not None:
        password = config.password
        if config.password_file and config.password_key:
            password = read_bound_password(config.password_file, config.password_key, broker_destination(config.broker))
        elif config.password_file:
            password = read_password(config.password_file)
        made.username_pw_set(config.username, password)
    if config.scheme == "mqtts":
        made.tls_set(ca_certs=config.ca or None, certfile=config.cert or None, keyfile=config.key or None,
                     tls_version=ssl.PROTOCOL_TLS_CLIENT)
    made.reconnect_delay_set(*RECONNECT_S)
    return made


def connect_properties() -> Properties:
    """What a client asks of the broker as it connects: a session kept while it is away, and no
    packet larger than ``MAX_PACKET``."""
    properties = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]  # paho 2.2 leaves it unannotated
    properties.SessionExpiryInterval = SESSION_EXPIRY_S
    properties.MaximumPacketSize = MAX_PACKET
    return properties


def connect(made: mqtt.Client, config: FleetConfig) -> None:
    """Connect in paho's own thread, in a session the broker keeps while the client is away
    (a broker that is down is tried again and again, never waited for here)."""
    made.connect_async(config.host, config.port, keepalive=KEEPALIVE_S, clean_start=False,
                       properties=connect_properties())
    made.loop_start()
